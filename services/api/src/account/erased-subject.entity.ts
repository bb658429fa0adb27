import { defineEntity, type InferEntity, p } from '@mikro-orm/core';

/**
 * A deleted account, known only by the SHA-256 of its former `sub` (a random UUID, so not guessable back): Keycloak events about it that reach
 * the audit log after the deletion (its sign-out, the deletion itself) are recorded under the same
 * anonymous id instead of the person's id or name.
 */
export const ErasedSubject = defineEntity({
  name: 'ErasedSubject',
  tableName: 'erased_subject',
  properties: {
    // SHA-256 (hex) of the former subject.
    subjectHash: p.string().length(64).primary(),
    anonymousId: p.string().length(64),
    erasedAt: p.datetime(),
  },
});

export type ErasedSubject = InferEntity<typeof ErasedSubject>;

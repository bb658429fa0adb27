import { defineEntity, type InferEntity, p } from '@mikro-orm/core';
import { MAX_NAME_LENGTH } from '../auth/index.js';

/**
 * A person's own token for Keycloak's account API, which Keycloak issued to the API when the person signed in
 * there for it (AccountAccessService): one per Keycloak session, used only by requests whose own token names the
 * same session and subject, and only until it expires (Keycloak gives it at most 30 minutes). Kept sealed: a copy
 * of the table opens nothing without the API's client secret.
 */
export const AccountAccess = defineEntity({
  name: 'AccountAccess',
  tableName: 'account_access',
  properties: {
    // Keycloak's session id (`sid` of the person's tokens).
    sessionId: p.string().length(MAX_NAME_LENGTH).primary(),
    // SHA-256 (hex) of the person's `sub` (subjectHash): an erasure removes their rows without the id.
    subjectHash: p.string().length(64).index(),
    // The access token, sealed (SealedBox).
    token: p.text(),
    expiresAt: p.datetime(),
  },
});

export type AccountAccess = InferEntity<typeof AccountAccess>;

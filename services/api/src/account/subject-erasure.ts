import { createHash, randomBytes } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import type { EntityManager } from '@mikro-orm/core';
import type { SqlEntityManager } from '@mikro-orm/sql';
import type { AuthenticatedUser } from '../auth/index.js';
import { AuditEvent, AuditService } from '../audit/index.js';
import { AccountDeletedError } from './account.errors.js';
import { APP_CONFIG, type AppConfig } from '../config/index.js';
import { AccountAccess } from './account-access.entity.js';
import { ErasedSubject } from './erased-subject.entity.js';

/** The audit target Keycloak events about a user are recorded under (see KeycloakEventsPoller). */
export const userTarget = (userId: string): string => `user:${userId}`;

/** SHA-256 (hex) of a subject: how a deleted account is recognised without keeping its id. */
export const subjectHash = (sub: string): string => createHash('sha256').update(sub).digest('hex');

/**
 * What another module keeps about a person, removed inside the erasure's transaction: the module that keeps it
 * hands it over once, at start-up ({@link SubjectErasure.alsoErase}; the profile module does), so this module
 * knows nothing of it.
 */
export type SubjectEraser = (em: EntityManager, sub: string) => Promise<unknown>;

/**
 * The one place that erases a person and that refuses to bring them back. Keycloak deletes the account (the
 * person's own `delete_account` action, or an administrator); KeycloakEventsPoller reads that from Keycloak's
 * events and calls {@link SubjectErasure.erase}, and every write that would create the person's profile again
 * calls {@link SubjectErasure.refuseErased} first. Both take the same per-subject lock inside their transaction
 * (PostgreSQL; SQLite writes one transaction at a time anyway), so a profile write racing the erasure either
 * lands before it, and is erased with the rest, or sees the erasure and is refused.
 */
@Injectable()
export class SubjectErasure {
  private readonly erasers: SubjectEraser[] = [];

  constructor(
    private readonly audit: AuditService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** Adds what `eraser` removes to every erasure (called once, at start-up, by the module that keeps it). */
  alsoErase(eraser: SubjectEraser): void {
    this.erasers.push(eraser);
  }

  /**
   * Inside the caller's transaction: throws AccountDeletedError when `user`'s subject was erased. Only the
   * profile's write path calls it, which after an erasure is every route that would keep something about them
   * (/api/me finds no profile and takes that path): the steady read costs nothing more.
   */
  async refuseErased(em: EntityManager, user: AuthenticatedUser): Promise<void> {
    await this.lock(em, user.sub);
    if ((await em.count(ErasedSubject, { subjectHash: subjectHash(user.sub) })) > 0) {
      throw new AccountDeletedError(user.boundKeyThumbprint === null ? 'Bearer' : 'DPoP');
    }
  }

  /**
   * Inside the caller's transaction: removes what the other modules keep about `sub` (the profile with the
   * preferences, and the display name in the audit entries they wrote: {@link alsoErase}) and the account tokens
   * of `sub`, re-labels the audit rows about them with an anonymous id, records `account.deleted` under it and
   * keeps the SHA-256 of `sub` with that id. Idempotent: a subject erased before keeps its id. Returns the id.
   */
  async erase(em: EntityManager, sub: string, at: Date): Promise<string> {
    await this.lock(em, sub);
    const hash = subjectHash(sub);
    const known = await em.findOne(ErasedSubject, { subjectHash: hash });
    const anonymousId = known?.anonymousId ?? `anonymous-${randomBytes(8).toString('hex')}`;
    for (const eraser of this.erasers) await eraser(em, sub);
    await em.nativeDelete(AccountAccess, { subjectHash: hash });
    await em.nativeUpdate(
      AuditEvent,
      { target: userTarget(sub) },
      {
        actor: anonymousId,
        actorName: null,
        target: userTarget(anonymousId),
        details: { source: 'keycloak' },
      },
    );
    if (!known) {
      await em.insert(ErasedSubject, { subjectHash: hash, anonymousId, erasedAt: at });
      this.audit.record(
        em,
        { actor: anonymousId, action: 'account.deleted', target: `account:${anonymousId}`, details: {} },
        at,
      );
    }
    return anonymousId;
  }

  private async lock(em: EntityManager, sub: string): Promise<void> {
    if (this.config.database.driver !== 'postgresql') return;
    await (em as SqlEntityManager).execute('select pg_advisory_xact_lock(hashtextextended(?, 0))', [
      `atrium:subject:${sub}`,
    ]);
  }
}

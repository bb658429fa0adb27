import { Injectable } from '@nestjs/common';
import { EntityManager } from '@mikro-orm/core';
import { SubjectErasure } from '../account/index.js';
import { AuditService } from '../audit/index.js';
import type { AuthenticatedUser } from '../auth/index.js';
import { preparedRead } from '../database/index.js';
import type { z } from 'zod';
import type { meDocumentSchema, Preferences } from './preferences.schema.js';
import { UserProfile } from './user-profile.entity.js';

/** Response of `/api/me`, as its schema (preferences.schema.ts) describes it in the OpenAPI document. */
export type MeDocument = z.output<typeof meDocumentSchema>;

/**
 * Keeps each caller's profile in step with their token and owns their preferences. A profile is written only on
 * the write path, which first asks SubjectErasure whether Keycloak deleted the person: a token that outlives its
 * account cannot bring the profile back, while the steady read costs nothing more. The erasure of a person
 * removes their profile too, and their display name from the audit entries they wrote under the profile's user
 * name: this service hands it that part at start-up.
 */
@Injectable()
export class MeService {
  constructor(
    private readonly em: EntityManager,
    private readonly erasure: SubjectErasure,
    audit: AuditService,
  ) {
    erasure.alsoErase(async (em, sub) => {
      const profile = await em.findOne(
        UserProfile,
        { id: sub },
        { fields: ['username'], disableIdentityMap: true },
      );
      if (profile) await audit.forgetName(em, profile.username);
      await em.nativeDelete(UserProfile, { id: sub });
    });
  }

  /**
   * The caller's profile, created on first sight and refreshed from the token's claims afterwards. The
   * steady path (claims unchanged since the last call) is one read by primary key, its row returned as is:
   * no entity is built, tracked or diffed and nothing is written. Only new or changed claims take the
   * write path.
   */
  async getMe(user: AuthenticatedUser): Promise<MeDocument> {
    const stored = await readStoredClaims(this.em, [user.sub]);
    if (stored && claimsMatch(stored, user)) return toDocument(user, stored);
    // Its own EntityManager for the write: the steady path above needs none, so the route opens no request
    // context (me.controller.ts). A transaction, for the erasure check to hold until the write commits.
    const profile = await this.em.fork().transactional((em) => this.syncProfile(em, user));
    return toDocument(user, profile);
  }

  /** Refreshes the profile and stores the preferences in one transaction: both are written, or neither. */
  updatePreferences(user: AuthenticatedUser, preferences: Preferences): Promise<MeDocument> {
    return this.em.transactional(async (em) => {
      const profile = await this.syncProfile(em, user);
      profile.theme = preferences.theme;
      // transactional() flushes before it commits.
      return toDocument(user, profile);
    });
  }

  /**
   * The caller's profile with the token's claims applied; a new one is inserted at once, changes wait for a
   * flush. Inside a transaction: refused (AccountDeletedError) once the caller's account was erased.
   */
  private async syncProfile(em: EntityManager, user: AuthenticatedUser): Promise<UserProfile> {
    await this.erasure.refuseErased(em, user);
    const claims = { username: user.username, email: user.email, name: user.name };
    const existing = await em.findOne(UserProfile, { id: user.sub });
    if (existing) {
      em.assign(existing, claims);
      return existing;
    }
    // An upsert rather than an insert: two first requests of the same user may race, and neither may fail.
    const now = new Date();
    return em.upsert(
      UserProfile,
      { id: user.sub, ...claims, theme: 'system', createdAt: now, updatedAt: now },
      { onConflictFields: ['id'], onConflictMergeFields: ['username', 'email', 'name', 'updatedAt'] },
    );
  }
}

/** The columns of a profile the `/api/me` document is made of, as read on the steady path. */
type StoredClaims = Pick<UserProfile, 'username' | 'email' | 'name' | 'theme'>;

/** The steady path's one read by primary key, as a statement prepared once (../database/prepared-read.ts). */
const readStoredClaims = preparedRead<StoredClaims>('atrium_me_stored_claims', (em) =>
  em
    .createQueryBuilder(UserProfile)
    .select(['username', 'email', 'name', 'theme'])
    .where({ id: 'the caller' }),
);

/** Whether the stored copy of the token's identity claims is still current . */
function claimsMatch(stored: StoredClaims, user: AuthenticatedUser): boolean {
  return (
    stored.username === user.username &&
    (stored.email ?? null) === user.email &&
    (stored.name ?? null) === user.name
  );
}

function toDocument(user: AuthenticatedUser, profile: StoredClaims): MeDocument {
  return {
    sub: user.sub,
    username: profile.username,
    name: profile.name ?? null,
    email: profile.email ?? null,
    roles: [...user.roles],
    preferences: { theme: profile.theme },
  };
}

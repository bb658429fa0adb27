import { type EntityManager, LockMode } from '@mikro-orm/core';
import type { AuditActor, AuditService } from '../audit/index.js';
import type { AppConfig } from '../config/index.js';
import type { Canaries } from './canaries.js';
import { VersionUnverifiableError, VersionWithdrawnError } from './registry.errors.js';
import { RemoteVersion } from './remote-version.entity.js';
import { Remote } from './remote.entity.js';

/**
 * Refuses to serve `target` (as the active version or as a canary) unless the shell can check it (both hashes
 * recorded at publish) and no administrator withdrew it.
 */
export function assertServable(target: RemoteVersion): void {
  const { name } = target.remote;
  if (!target.integrity || !target.manifestIntegrity)
    throw new VersionUnverifiableError(name, target.version);
  if (target.withdrawnAt)
    throw new VersionWithdrawnError(name, target.version, target.withdrawalReason ?? null);
}

/**
 * Reads a remote for a change, locking its row (PostgreSQL) so that concurrent publishes, activations and
 * canary steps of one remote queue up instead of interleaving. SQLite has no row locks (and no FOR UPDATE);
 * its writers are serialised by the database lock.
 */
export function lockRemote(
  em: EntityManager,
  database: AppConfig['database'],
  name: string,
): Promise<Remote | null> {
  return database.driver === 'postgresql'
    ? em.findOne(Remote, { name }, { lockMode: LockMode.PESSIMISTIC_WRITE })
    : em.findOne(Remote, { name });
}

/**
 * Makes `target` the remote's active version inside `em`'s transaction (the remote already locked) and
 * records `remote.version.activated`; `via` says how (an activation, or a canary's promotion). A running
 * canary of that very version has nothing left to test and ends as promoted. Returns the previous active
 * version. The caller flushes.
 */
export async function makeActive(
  em: EntityManager,
  audit: AuditService,
  canaries: Canaries,
  by: AuditActor,
  remote: Remote,
  target: RemoteVersion,
  now: Date,
  via: 'activation' | 'canary promotion' = 'activation',
): Promise<string | null> {
  const previous = await em.findOne(RemoteVersion, { remote: remote.name, active: true });
  if (previous) previous.active = false;
  target.active = true;
  remote.updatedAt = now;
  await canaries.activated(
    em,
    remote.name,
    target.version,
    by.actor,
    now,
    via === 'activation' ? 'its version was activated directly' : null,
  );
  audit.record(
    em,
    {
      actor: by.actor,
      actorName: by.name,
      action: 'remote.version.activated',
      target: `${remote.name}@${target.version}`,
      details: {
        remote: remote.name,
        version: target.version,
        previousVersion: previous?.version ?? null,
        ...(via === 'activation' ? {} : { via }),
      },
    },
    now,
  );
  return previous?.version ?? null;
}

import { createHash } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { EntityManager, UniqueConstraintViolationException } from '@mikro-orm/core';
import type { AuthenticatedUser } from '../auth/index.js';
import { AuditService, changedFields } from '../audit/index.js';
import { ValidationFailedError } from '../common/errors/domain-errors.js';
import {
  NotRemoteOwnerError,
  PathInUseError,
  RemoteExistsError,
  RemoteNotFoundError,
  RemoteOriginRefusedError,
  VersionExistsError,
  VersionNotFoundError,
  VersionInUseError,
} from './registry.errors.js';
import { APP_CONFIG, type AppConfig } from '../config/index.js';
import {
  type ActivateVersion,
  type CreateRemote,
  manifestOriginProblem,
  type PublishVersion,
  type UpdateRemote,
} from './registry.schemas.js';
import { type ActiveRemote, ActiveRemotes, type ActiveRemotesSnapshot } from './active-remotes.js';
import { CANARIES, type Canaries } from './canaries.js';
import { assertMayDeploy, requireDeployRole } from './registry.roles.js';
import { RemoteVersion } from './remote-version.entity.js';
import { Remote } from './remote.entity.js';
import { type ReleaseCheck, SharedDependencyGate } from './shared-dependency-gate.js';
import { type SharedDependency, sharedDependenciesOf } from './shared-dependencies.js';
import type { remoteDetailSchema, remoteListSchema, versionDocSchema } from './registry.schemas.js';
import { assertServable, lockRemote, makeActive } from './version-switch.js';
import type { z } from 'zod';

// The documents this service answers with are the output of the schemas that describe them in the OpenAPI
// document (registry.schemas.ts), so the answer and the contract cannot drift apart.
/** A remote as administrators and publishers see it. */
export type RemoteDetail = z.output<typeof remoteDetailSchema>;

/** One published version. */
export type VersionDoc = z.output<typeof versionDocSchema>;

/** What the shell loads: the active version of a remote the caller may use. */
export type RemoteEntry = z.output<typeof remoteListSchema>['remotes'][number];
export type PulledRelease = z.output<typeof remoteListSchema>['withdrawn'][number];

const DEFAULT_NAV_ORDER = 100;

/**
 * The registry of remotes. Every write is one transaction that also writes its audit event, and locks
 * the remote's row first (PostgreSQL) so that concurrent publishes and activations of one remote queue
 * up instead of leaving two active versions.
 */
@Injectable()
export class RegistryService {
  constructor(
    private readonly em: EntityManager,
    private readonly audit: AuditService,
    private readonly activeRemotes: ActiveRemotes,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(CANARIES) private readonly canaries: Canaries,
    private readonly gate: SharedDependencyGate,
  ) {}

  /**
   * The version of each remote whose required roles the caller all holds, in navigation order, from the
   * replica's copy of the registry ({@link ActiveRemotes}): the active (stable) version, or the running
   * canary's when the caller is in its audience (CANARIES decides, from the verified token's `sub` and roles,
   * never by the browser).
   */
  async listForUser(
    user: AuthenticatedUser,
  ): Promise<{ remotes: RemoteEntry[]; withdrawn: PulledRelease[]; etag: string }> {
    const snapshot = await this.activeRemotes.get();
    const roles = [...new Set(user.roles)].sort();
    const servable = servableTo(snapshot, roles);
    const served = servable.map((remote) => decideCanary(remote, user, this.canaries));
    const canaries = served.filter((remote) => remote.getsCanary).map((remote) => remote.entry.name);
    return {
      remotes: served.map((remote) => remote.entry),
      withdrawn: pulledReleases(servable),
      // The answer is a function of the registry's content, the caller's roles and the canaries the caller is
      // in, so is its validator.
      etag: `"${createHash('sha256')
        .update(`${snapshot.digest}\n${roles.join('\n')}\n${canaries.join('\n')}`)
        .digest('base64url')}"`,
    };
  }

  /**
   * What field telemetry needs of {@link listForUser}, for the few remotes a report names and without building
   * the answer: of each that the caller may use, the version they are served and whether a canary of it runs.
   */
  async servedVersions(
    user: AuthenticatedUser,
    names: readonly string[],
  ): Promise<Map<string, ServedToPerson>> {
    const snapshot = await this.activeRemotes.get();
    let index = remotesByName.get(snapshot);
    if (!index) {
      index = new Map(snapshot.remotes.map((remote) => [remote.name, remote]));
      remotesByName.set(snapshot, index);
    }
    const served = new Map<string, ServedToPerson>();
    for (const name of names) {
      const remote = index.get(name);
      const entry = remote && serve(remote, user, this.canaries);
      if (entry)
        served.set(name, { version: entry.entry.version, canaryStartedAt: remote.canary?.startedAt ?? null });
    }
    return served;
  }

  /** Creates a remote with its settings and owner (an administrator's act); it has no version yet. */
  async create(user: AuthenticatedUser, input: CreateRemote): Promise<RemoteDetail> {
    try {
      return await this.createOnce(user, input);
    } catch (error) {
      // A concurrent create of the same name or path won the insert; answer as if it had come first.
      if (!(error instanceof UniqueConstraintViolationException)) throw error;
      return this.createOnce(user, input);
    }
  }

  private createOnce(user: AuthenticatedUser, input: CreateRemote): Promise<RemoteDetail> {
    return this.activeRemotes.change(this.em, async (em) => {
      if (await em.count(Remote, { name: input.name })) throw new RemoteExistsError(input.name);
      await assertPathFree(em, input.path, input.name);
      const now = new Date();
      const remote = em.create(Remote, {
        name: input.name,
        title: input.title,
        path: input.path,
        navOrder: input.navOrder ?? DEFAULT_NAV_ORDER,
        requiredRoles: input.requiredRoles ?? [],
        owner: input.owner,
        createdAt: now,
        updatedAt: now,
      });
      this.audit.record(
        em,
        {
          actor: user.actor,
          actorName: user.name,
          action: 'remote.created',
          target: input.name,
          details: { remote: input.name, ...settingsOf(remote) },
        },
        now,
      );
      await em.flush();
      return toDetail(remote, null);
    });
  }

  /**
   * Changes who may see a remote, where it appears or who owns it (an administrator's act). The audit event
   * records each changed field's old and new value; a request that changes nothing records nothing.
   */
  async update(user: AuthenticatedUser, name: string, input: UpdateRemote): Promise<RemoteDetail> {
    try {
      return await this.updateOnce(user, name, input);
    } catch (error) {
      if (!(error instanceof UniqueConstraintViolationException)) throw error;
      return this.updateOnce(user, name, input);
    }
  }

  private updateOnce(user: AuthenticatedUser, name: string, input: UpdateRemote): Promise<RemoteDetail> {
    return this.activeRemotes.change(this.em, async (em) => {
      const remote = await this.lockRemote(em, name);
      if (!remote) throw new RemoteNotFoundError(name);
      // Platform code (the admin console) changes hands only by the platform's own client: a person's session
      // could be driven by any remote that person opens (docs/security.md, "A remote acts as the person").
      const { platformClientId } = this.config;
      if (
        input.owner !== undefined &&
        input.owner !== remote.owner &&
        remote.owner === platformClientId &&
        user.clientId !== platformClientId
      ) {
        throw new NotRemoteOwnerError(name, remote.owner, user.clientId, 'hand over');
      }
      if (input.path !== undefined) await assertPathFree(em, input.path, name);
      const before = settingsOf(remote);
      const after = { ...before, ...input };
      const changes = changedFields(before, after);
      if (Object.keys(changes).length > 0) {
        const now = new Date();
        em.assign(remote, { ...after, updatedAt: now });
        this.audit.record(
          em,
          {
            actor: user.actor,
            actorName: user.name,
            action: 'remote.updated',
            target: name,
            details: { remote: name, changes },
          },
          now,
        );
        await em.flush();
      }
      return toDetail(remote, await activeVersionOf(em, name));
    });
  }

  /**
   * Registers a version of an existing remote; only the remote's owning deployer may (the route already
   * requires the publisher role). Settings are never taken from a publish. The packages its manifest shares
   * (when the publish sends the manifest) must match what is live (SharedDependencyGate).
   */
  async publish(
    user: AuthenticatedUser,
    name: string,
    input: PublishVersion,
  ): Promise<{ remote: RemoteDetail; version: VersionDoc }> {
    const originProblem = manifestOriginProblem(input.manifestUrl, this.config.allowedRemoteOrigins);
    if (originProblem) throw new RemoteOriginRefusedError(originProblem);
    const shared =
      input.manifest === undefined ? null : sharedOfManifest(input.manifest, input.manifestIntegrity);
    return this.gate.guard(user, 'publish', (check) => this.publishChecked(user, name, input, shared, check));
  }

  private publishChecked(
    user: AuthenticatedUser,
    name: string,
    input: PublishVersion,
    shared: SharedDependency[] | null,
    check: ReleaseCheck,
  ): Promise<{ remote: RemoteDetail; version: VersionDoc }> {
    return this.activeRemotes.change(this.em, async (em) => {
      const now = new Date();
      const remote = await this.lockRemote(em, name);
      if (!remote) {
        throw new RemoteNotFoundError(
          name,
          'An administrator must create it first (POST /api/remotes, or the admin console), naming its owner.',
        );
      }
      if (user.clientId !== remote.owner) {
        throw new NotRemoteOwnerError(name, remote.owner, user.clientId, 'publish');
      }
      if (await em.count(RemoteVersion, { remote: name, version: input.version })) {
        throw new VersionExistsError(name, input.version);
      }
      await check(em, { remote: name, version: input.version, shared });
      const version = em.create(RemoteVersion, {
        remote,
        version: input.version,
        manifestUrl: input.manifestUrl,
        integrity: input.integrity,
        manifestIntegrity: input.manifestIntegrity,
        shared,
        publishedBy: user.actor,
        publishedAt: now,
        active: false,
        breaking: input.breaking ?? false,
      });
      this.audit.record(
        em,
        {
          actor: user.actor,
          actorName: user.name,
          action: 'remote.version.published',
          target: `${name}@${input.version}`,
          details: {
            remote: name,
            version: input.version,
            manifestUrl: input.manifestUrl,
            integrity: input.integrity,
            manifestIntegrity: input.manifestIntegrity,
            // Said only of a version published as breaking its active one's type contract (--breaking).
            ...(input.breaking ? { breaking: true } : {}),
            shared,
          },
        },
        now,
      );
      if (input.activate) await makeActive(em, this.audit, this.canaries, user, remote, version, now);
      await em.flush();
      const activeVersion = input.activate ? input.version : await activeVersionOf(em, name);
      return { remote: toDetail(remote, activeVersion), version: toVersionDoc(version) };
    });
  }

  /**
   * Makes `version` the one the shell loads; rollback is activating an older version. Administrators may
   * activate any remote's versions, a deployer only those of the remotes it owns.
   */
  async activate(user: AuthenticatedUser, name: string, input: ActivateVersion): Promise<RemoteDetail> {
    const { admin } = requireDeployRole(user);
    return this.gate.guard(user, 'activate', (check) =>
      this.activeRemotes.change(this.em, async (em) => {
        const remote = await this.lockRemote(em, name);
        if (!remote) throw new RemoteNotFoundError(name);
        assertMayDeploy(user, admin, remote, 'activate');
        const target = await em.findOne(RemoteVersion, { remote: name, version: input.version });
        if (!target) throw new VersionNotFoundError(name, input.version);
        assertServable(target);
        if (!target.active) {
          await check(em, { remote: name, version: target.version, shared: target.shared ?? null });
          await makeActive(em, this.audit, this.canaries, user, remote, target, new Date());
          // Deactivate before activating: the flush order within one unit of work follows change order.
          await em.flush();
        }
        return toDetail(remote, input.version);
      }),
    );
  }

  /**
   * Withdraws a version (administrators only, with a reason): it is never activated or run as a canary again,
   * and `GET /api/remotes` names it among the withdrawn releases, so open pages stop loading it. Only a version
   * nobody is served can be withdrawn. Withdrawing it again changes nothing.
   */
  async withdraw(
    user: AuthenticatedUser,
    name: string,
    version: string,
    reason: string,
  ): Promise<VersionDoc> {
    return this.activeRemotes.change(this.em, async (em) => {
      const remote = await this.lockRemote(em, name);
      if (!remote) throw new RemoteNotFoundError(name);
      const target = await em.findOne(RemoteVersion, { remote: name, version });
      if (!target) throw new VersionNotFoundError(name, version);
      if (target.withdrawnAt) return toVersionDoc(target);
      if (target.active) throw new VersionInUseError(name, version, 'active');
      const canary = (await this.canaries.running(em)).find((running) => running.remote === name);
      if (canary?.version === version) throw new VersionInUseError(name, version, 'canary');
      const now = new Date();
      em.assign(target, { withdrawnAt: now, withdrawnBy: user.actor, withdrawalReason: reason });
      this.audit.record(
        em,
        {
          actor: user.actor,
          actorName: user.name,
          action: 'remote.version.withdrawn',
          target: `${name}@${version}`,
          details: { remote: name, version, reason },
        },
        now,
      );
      await em.flush();
      return toVersionDoc(target);
    });
  }

  /** A remote's versions, newest first: for administrators, and for its owning deployer (the release CLI). */
  async history(
    user: AuthenticatedUser,
    name: string,
  ): Promise<{ remote: RemoteDetail; versions: VersionDoc[] }> {
    const { admin } = requireDeployRole(user);
    const remote = await this.em.findOne(Remote, { name });
    if (!remote) throw new RemoteNotFoundError(name);
    assertMayDeploy(user, admin, remote, 'list');
    const versions = await this.em.find(
      RemoteVersion,
      { remote: name },
      { orderBy: { publishedAt: 'desc', id: 'desc' } },
    );
    const active = versions.find((version) => version.active);
    return { remote: toDetail(remote, active?.version ?? null), versions: versions.map(toVersionDoc) };
  }

  async listAll(): Promise<Array<RemoteDetail & { versions: VersionDoc[] }>> {
    const remotes = await this.em.find(Remote, {}, { orderBy: { navOrder: 'asc', name: 'asc' } });
    const versions = await this.em.find(RemoteVersion, {}, { orderBy: { publishedAt: 'desc', id: 'desc' } });
    const byRemote = new Map<string, RemoteVersion[]>();
    for (const version of versions) {
      const list = byRemote.get(version.remote.name) ?? [];
      list.push(version);
      byRemote.set(version.remote.name, list);
    }
    return remotes.map((remote) => {
      const own = byRemote.get(remote.name) ?? [];
      const active = own.find((version) => version.active);
      return { ...toDetail(remote, active?.version ?? null), versions: own.map(toVersionDoc) };
    });
  }

  private lockRemote(em: EntityManager, name: string): Promise<Remote | null> {
    return lockRemote(em, this.config.database, name);
  }
}

/**
 * The packages a publish's manifest shares, once its text is shown to be the stored file the shell will check
 * (its SRI hash is `manifestIntegrity`): what is checked is what runs.
 */
function sharedOfManifest(text: string, manifestIntegrity: string): SharedDependency[] {
  const refused = (message: string) => new ValidationFailedError([{ field: 'manifest', message }]);
  if (`sha384-${createHash('sha384').update(text, 'utf8').digest('base64')}` !== manifestIntegrity) {
    throw refused(
      'is not the file whose hash is manifestIntegrity: send the stored mf-manifest.json as it is, byte for byte',
    );
  }
  let manifest: unknown;
  try {
    manifest = JSON.parse(text);
  } catch {
    throw refused('is not JSON');
  }
  const read = sharedDependenciesOf(manifest);
  if ('problem' in read) throw refused(read.problem);
  return read.dependencies;
}

async function activeVersionOf(em: EntityManager, name: string): Promise<string | null> {
  return (await em.findOne(RemoteVersion, { remote: name, active: true }))?.version ?? null;
}

/** The settings an administrator decides: who may see a remote, where it appears, who deploys it. */
type RemoteSettings = Pick<RemoteDetail, 'title' | 'path' | 'navOrder' | 'requiredRoles' | 'owner'>;

function settingsOf(remote: Remote): RemoteSettings {
  return {
    title: remote.title,
    path: remote.path,
    navOrder: remote.navOrder,
    requiredRoles: [...remote.requiredRoles],
    owner: remote.owner,
  };
}

/** Refuses a route path another remote already uses (the unique index is the backstop under races). */
async function assertPathFree(em: EntityManager, path: string, name: string): Promise<void> {
  const other = await em.findOne(Remote, { path, name: { $ne: name } });
  if (other) throw new PathInUseError(path, other.name);
}

function toDetail(remote: Remote, activeVersion: string | null): RemoteDetail {
  return {
    name: remote.name,
    ...settingsOf(remote),
    activeVersion,
    createdAt: remote.createdAt.toISOString(),
    updatedAt: remote.updatedAt.toISOString(),
  };
}

function toVersionDoc(version: RemoteVersion): VersionDoc {
  return {
    version: version.version,
    manifestUrl: version.manifestUrl,
    integrity: version.integrity ?? null,
    manifestIntegrity: version.manifestIntegrity ?? null,
    shared: version.shared ?? null,
    publishedBy: version.publishedBy,
    publishedAt: version.publishedAt.toISOString(),
    active: version.active,
    withdrawal: version.withdrawnAt
      ? {
          at: version.withdrawnAt.toISOString(),
          by: version.withdrawnBy ?? '',
          reason: version.withdrawalReason ?? '',
        }
      : null,
    breaking: version.breaking,
  };
}

/** The version of a remote a person is served, and when the remote's running canary started (ms), if one runs. */
export interface ServedToPerson {
  readonly version: string;
  readonly canaryStartedAt: number | null;
}

/** Each copy of the registry's remotes by name, made once per copy (field telemetry looks up a few). */
const remotesByName = new WeakMap<ActiveRemotesSnapshot, ReadonlyMap<string, ActiveRemote>>();

/** What the caller is served of one remote: nothing without all its required roles. */
interface Served {
  readonly entry: RemoteEntry;
  /** Whether the caller gets the running canary. */
  readonly getsCanary: boolean;
}

/** A remote as served before the caller's canary is decided: its active version and its canary, if one runs. */
interface Servable {
  readonly stable: RemoteEntry;
  readonly canary: ActiveRemote['canary'];
  readonly pulled: ActiveRemote['pulled'];
}

function servableOf(remote: ActiveRemote): Servable {
  const { requiredRoles, canary, pulled, ...stable } = remote;
  return { stable: { ...stable, requiredRoles: [...requiredRoles] }, canary, pulled };
}

/** The pulled releases of the remotes a caller may use, made once per list of them. */
const pulledOf = new WeakMap<readonly Servable[], PulledRelease[]>();

function pulledReleases(servable: readonly Servable[]): PulledRelease[] {
  let pulled = pulledOf.get(servable);
  if (!pulled) {
    pulled = servable.flatMap(({ stable, pulled }) =>
      pulled.map((release) => ({ name: stable.name, ...release })),
    );
    pulledOf.set(servable, pulled);
  }
  return pulled;
}

/** The active version of the remote, or its running canary's when the caller is in the canary's audience. */
function decideCanary({ stable, canary }: Servable, user: AuthenticatedUser, canaries: Canaries): Served {
  if (!canary || !canaries.includes(canary, stable.name, user)) {
    return { entry: stable, getsCanary: false };
  }
  const { percent: _percent, roles: _roles, startedAt: _startedAt, ...version } = canary;
  return { entry: { ...stable, ...version }, getsCanary: true };
}

/** Whether `roles` include every role `remote` requires. */
const holdsAll = (roles: readonly string[], remote: ActiveRemote) =>
  remote.requiredRoles.every((role) => roles.includes(role));

/** What the caller is served of `remote`: nothing without all its required roles. */
function serve(remote: ActiveRemote, user: AuthenticatedUser, canaries: Canaries): Served | undefined {
  if (!holdsAll(user.roles, remote)) return undefined;
  return decideCanary(servableOf(remote), user, canaries);
}

/**
 * The remotes of each copy of the registry that a set of roles may use, by the set (sorted, as JSON): a
 * call walks its few remotes instead of the whole registry. Made on first use per copy and set; a copy keeps
 * at most {@link MAX_ROLE_SETS} of them (callers with other sets are answered all the same, just not from
 * memory), and goes with them once the registry changes.
 */
const servableByRoles = new WeakMap<ActiveRemotesSnapshot, Map<string, readonly Servable[]>>();
const MAX_ROLE_SETS = 1_000;

/** The remotes of `snapshot` whose required roles `roles` (sorted, no repeats) all holds, in navigation order. */
function servableTo(snapshot: ActiveRemotesSnapshot, roles: readonly string[]): readonly Servable[] {
  let byRoles = servableByRoles.get(snapshot);
  if (!byRoles) {
    byRoles = new Map();
    servableByRoles.set(snapshot, byRoles);
  }
  const key = JSON.stringify(roles);
  let servable = byRoles.get(key);
  if (!servable) {
    servable = snapshot.remotes.filter((remote) => holdsAll(roles, remote)).map(servableOf);
    if (byRoles.size < MAX_ROLE_SETS) byRoles.set(key, servable);
  }
  return servable;
}

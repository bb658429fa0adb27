import { createHash } from 'node:crypto';
import { EntityManager, MikroORM } from '@mikro-orm/core';
import type { SqlEntityManager } from '@mikro-orm/sql';
import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import pg from 'pg';
import { APP_CONFIG, type AppConfig } from '../config/index.js';
import { CANARIES, type CanaryAudience, type Canaries } from './canaries.js';
import { RemoteVersion } from './remote-version.entity.js';

/** A version as the shell loads it: where its manifest is and the hashes it must have. */
export interface ServedVersion {
  readonly version: string;
  readonly entry: string;
  readonly integrity: string;
  readonly manifestIntegrity: string;
}

/**
 * A remote with an active, verifiable version and the settings of the remote: what `/api/remotes` is made of.
 * `canary` is the running canary's version, audience (canaries.ts) and start (ms), when there is one.
 */
export interface ActiveRemote extends ServedVersion {
  readonly name: string;
  readonly title: string;
  readonly path: string;
  readonly navOrder: number;
  readonly requiredRoles: readonly string[];
  readonly canary?: ServedVersion & CanaryAudience & { readonly startedAt: number };
  /** Its releases no longer served (withdrawn, or a canary rolled back), which open pages must drop. */
  readonly pulled: readonly {
    readonly version: string;
    readonly kind: 'withdrawn' | 'rolled-back';
    readonly reason: string;
  }[];
}

/** The active remotes at one moment, with a digest of their content (the same on every replica). */
export interface ActiveRemotesSnapshot {
  readonly remotes: readonly ActiveRemote[];
  readonly digest: string;
}

/** The PostgreSQL channel every registry write notifies, at its commit. */
export const REGISTRY_CHANNEL = 'atrium_registry_changed';
/** The `application_name` of each replica's listening connection, as `pg_stat_activity` shows it. */
export const REGISTRY_LISTENER_NAME = 'atrium-registry-listener';
const RECONNECT_MS = { first: 500, max: 30_000 };
/**
 * The listening connection is asked `select 1` this often. PostgreSQL hands a listener the notifications that
 * reached it before it answers a statement, so an answer means nothing committed before the question was missed.
 */
const HEARTBEAT_MS = 250;
/**
 * The copy is used only while the listening connection answered within this long; past it (a connection cut
 * without either side noticing, a database too slow to answer) every request reads the database until an answer
 * comes. So a change committed on any replica is served by every replica within this bound, a second at most.
 */
const TRUSTED_FOR_MS = 750;
/** A listening connection that has not answered for this long is closed and opened again. */
const SILENT_FOR_MS = 10_000;
/** How long shutdown waits for the listening connection to close. */
const END_WAIT_MS = 1_000;
/** A copy is reloaded after this long even if nothing changed (belt and braces). */
const MAX_AGE_MS = 30_000;

/**
 * The registry's active versions and running canaries, held in memory by each replica so that `/api/remotes`
 * reads no database:
 * loaded on first use and dropped whenever the registry changes. Every write to remotes, versions or
 * rollouts goes through {@link change}:
 * one transaction that, on PostgreSQL, also sends `NOTIFY atrium_registry_changed`, delivered to every
 * replica's listening connection at commit (and never for a rolled-back write). On SQLite there is one
 * process, so dropping its own copy after the commit is enough.
 *
 * Correctness never depends on the notification arriving: while a replica's listening connection is down
 * (PostgreSQL restarting, a network cut) it reads through to the database on every request, and when the
 * connection is back it drops its copy, since changes may have been missed meanwhile. A connection that dies
 * unnoticed is caught by a heartbeat: the copy is used only while the listening connection has answered within
 * {@link TRUSTED_FOR_MS}, so a change (a rollback, say) reaches every replica's next request within that bound.
 */
@Injectable()
export class ActiveRemotes implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('ActiveRemotes');
  private cached: Promise<ActiveRemotesSnapshot> | undefined;
  private cachedAt = 0;
  private generation = 0;
  /** Whether changes made elsewhere reach this replica (always on SQLite, a live LISTEN on PostgreSQL). */
  private listening: boolean;
  private listener: pg.Client | undefined;
  /** When the listening connection last answered (ms). */
  private answeredAt = 0;
  private heartbeatTimer: NodeJS.Timeout | undefined;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    private readonly orm: MikroORM,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(CANARIES) private readonly canaries: Canaries,
  ) {
    this.listening = config.database.driver === 'sqlite';
  }

  async onApplicationBootstrap(): Promise<void> {
    if (this.config.database.driver === 'postgresql') await this.listen(RECONNECT_MS.first);
  }

  async onApplicationShutdown(): Promise<void> {
    this.closed = true;
    clearTimeout(this.reconnectTimer);
    clearInterval(this.heartbeatTimer);
    const listener = this.listener;
    if (!listener) return;
    // A connection gone silent never confirms its end: shutdown does not wait for it past a moment.
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      listener.end().catch(() => undefined),
      new Promise((resolve) => (timer = setTimeout(resolve, END_WAIT_MS))),
    ]);
    clearTimeout(timer);
  }

  /** The active remotes, in navigation order: from memory while that is known to be current. */
  get(): Promise<ActiveRemotesSnapshot> {
    if (!this.listening || (this.listener && Date.now() - this.answeredAt > TRUSTED_FOR_MS))
      return this.load();
    if (!this.cached || Date.now() - this.cachedAt > MAX_AGE_MS) {
      const generation = this.generation;
      const loading = this.load();
      this.cached = loading;
      this.cachedAt = Date.now();
      // A change committed while loading may not be in what was read: keep it only if none came.
      loading.then(
        () => {
          if (this.generation !== generation && this.cached === loading) this.cached = undefined;
        },
        () => {
          if (this.cached === loading) this.cached = undefined;
        },
      );
    }
    return this.cached;
  }

  /**
   * Runs a registry write in one transaction that announces itself to every replica at commit, then drops
   * this replica's copy. Every write to remotes or their versions goes through here.
   */
  async change<T>(em: EntityManager, work: (em: EntityManager) => Promise<T>): Promise<T> {
    const result = await em.transactional(async (tx) => {
      const value = await work(tx);
      if (this.config.database.driver === 'postgresql') {
        await (tx as SqlEntityManager).execute(`notify ${REGISTRY_CHANNEL}`);
      }
      return value;
    });
    this.invalidate();
    return result;
  }

  private invalidate(): void {
    this.generation += 1;
    this.cached = undefined;
  }

  private async load(): Promise<ActiveRemotesSnapshot> {
    const em = this.orm.em.fork();
    const [active, running, withdrawn, rolledBack] = await Promise.all([
      em.find(RemoteVersion, { active: true }, { populate: ['remote'], disableIdentityMap: true }),
      this.canaries.running(em),
      em.find(
        RemoteVersion,
        { withdrawnAt: { $ne: null } },
        { orderBy: { withdrawnAt: 'asc', id: 'asc' }, disableIdentityMap: true },
      ),
      this.canaries.rolledBack(em),
    ]);
    const canaryVersions = running.length
      ? await em.find(
          RemoteVersion,
          { $or: running.map((rollout) => ({ remote: rollout.remote, version: rollout.version })) },
          { disableIdentityMap: true },
        )
      : [];
    const remotes = active
      .flatMap(({ remote, version, manifestUrl, integrity, manifestIntegrity }): ActiveRemote[] => {
        // A version without both hashes (registered before they were required) is never served.
        if (!integrity || !manifestIntegrity) return [];
        const rollout = running.find((candidate) => candidate.remote === remote.name);
        const canary = canaryVersions.find(
          (candidate) => candidate.remote.name === remote.name && candidate.version === rollout?.version,
        );
        const pulled = [
          ...withdrawn
            .filter((candidate) => candidate.remote.name === remote.name)
            .map((candidate) => ({
              version: candidate.version,
              kind: 'withdrawn' as const,
              reason: candidate.withdrawalReason ?? '',
            })),
          ...rolledBack
            .filter((ended) => ended.remote === remote.name)
            .map((ended) => ({ version: ended.version, kind: 'rolled-back' as const, reason: ended.reason })),
        ];
        return [
          {
            name: remote.name,
            title: remote.title,
            path: remote.path,
            navOrder: remote.navOrder,
            requiredRoles: [...remote.requiredRoles],
            version,
            entry: manifestUrl,
            integrity,
            manifestIntegrity,
            pulled,
            ...(rollout && canary?.integrity && canary.manifestIntegrity
              ? {
                  canary: {
                    version: canary.version,
                    entry: canary.manifestUrl,
                    integrity: canary.integrity,
                    manifestIntegrity: canary.manifestIntegrity,
                    percent: rollout.percent,
                    roles: [...rollout.roles],
                    startedAt: rollout.startedAt.getTime(),
                  },
                }
              : {}),
          },
        ];
      })
      .sort((a, b) => a.navOrder - b.navOrder || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    return { remotes, digest: createHash('sha256').update(JSON.stringify(remotes)).digest('base64url') };
  }

  /**
   * Asks the listening connection `select 1` every {@link HEARTBEAT_MS}, one question at a time, and notes when
   * it answers; one that stays silent for {@link SILENT_FOR_MS} is given up as lost.
   */
  private heartbeat(client: pg.Client, lost: (error?: Error) => void): NodeJS.Timeout {
    let askedAt: number | undefined;
    return setInterval(() => {
      if (askedAt !== undefined) {
        if (Date.now() - askedAt > SILENT_FOR_MS) lost(new Error(`no answer for ${SILENT_FOR_MS} ms`));
        return;
      }
      askedAt = Date.now();
      client.query('select 1').then(
        () => {
          askedAt = undefined;
          if (this.listener === client) this.answeredAt = Date.now();
        },
        // A failed connection is reported by its error event, which `lost` handles.
        () => undefined,
      );
    }, HEARTBEAT_MS).unref();
  }

  /** Opens the LISTEN connection; on failure or loss, reads through and tries again with backoff. */
  private async listen(delay: number): Promise<void> {
    if (this.closed || this.config.database.driver !== 'postgresql') return;
    const client = new pg.Client({
      connectionString: this.config.database.url,
      application_name: REGISTRY_LISTENER_NAME,
    });
    const lost = (error?: Error) => {
      if (this.listener !== client) return;
      this.listener = undefined;
      this.listening = false;
      clearInterval(this.heartbeatTimer);
      this.invalidate();
      client.end().catch(() => undefined);
      if (this.closed) return;
      this.logger.warn(
        `lost the registry change notifications${error ? ` (${error.message})` : ''}; reading the database ` +
          `on every request until they are back`,
      );
      this.reconnectTimer = setTimeout(() => void this.listen(RECONNECT_MS.first), delay).unref();
    };
    this.listener = client;
    client.on('notification', () => this.invalidate());
    client.on('error', lost);
    client.on('end', () => lost());
    try {
      await client.connect();
      if (this.closed) {
        await client.end();
        return;
      }
      await client.query(`listen ${REGISTRY_CHANNEL}`);
      // Whatever changed while nobody listened is not in the copy: start afresh.
      this.invalidate();
      this.answeredAt = Date.now();
      this.listening = true;
      this.heartbeatTimer = this.heartbeat(client, lost);
    } catch (error) {
      if (this.listener !== client) return;
      this.listener = undefined;
      client.end().catch(() => undefined);
      if (this.closed) return;
      this.reconnectTimer = setTimeout(
        () => void this.listen(Math.min(delay * 2, RECONNECT_MS.max)),
        delay,
      ).unref();
      this.logger.warn(
        `cannot listen for registry changes yet (${error instanceof Error ? error.message : 'unknown error'}); retrying`,
      );
    }
  }
}

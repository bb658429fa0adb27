import { createHash } from 'node:crypto';
import type { MikroORM } from '@mikro-orm/core';
import { Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { Pool } from 'pg';

/**
 * Where a replica records the DPoP proofs it accepts so that every other replica refuses them
 * (docs/adr/0016-one-api-across-replicas.md). Absent on SQLite, where the API is one process.
 */
export interface SharedProofReplays {
  /** Records `id` (a proof key's thumbprint and the proof's jti): true the first time any replica does, else false. */
  use(id: string): Promise<boolean>;
}

/** The Nest token of the {@link SharedProofReplays}, or null when there is none. */
export const SHARED_PROOF_REPLAYS = Symbol('SHARED_PROOF_REPLAYS');

/**
 * Writes stored ids (see {@link storedProofId}) that are to be kept until `expiresAt` (seconds since the Unix
 * epoch), and resolves with those no replica had written before.
 */
export type RecordProofIds = (ids: readonly string[], expiresAt: number) => Promise<Iterable<string>>;

/** Ids one statement takes at most; more wait for the next. */
const MAX_BATCH = 500;
/** Statements under way at once (so a replica holds at most two connections for this); later ids wait for one. */
const MAX_IN_FLIGHT = 2;

interface Waiting {
  readonly id: string;
  readonly resolve: (fresh: boolean) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * A {@link SharedProofReplays} that writes the ids of the requests arriving together in one statement: every id
 * asked for during one turn of the event loop goes in the next statement, and while {@link MAX_IN_FLIGHT}
 * statements run, the next batch grows. So a request waits for about one database round trip, and a busy
 * replica makes one write per batch rather than one per request. An id asked for twice in a batch is fresh only
 * for the first; a failed statement fails every request of its batch with its error (a database that cannot be
 * reached answers 503 `database_unavailable`: a proof nobody could record is never accepted).
 */
export class BatchedProofReplays implements SharedProofReplays {
  private waiting: Waiting[] = [];
  private inFlight = 0;
  private scheduled = false;

  constructor(
    private readonly record: RecordProofIds,
    /** How long a proof stays acceptable from the moment it is accepted (proof-replay-cache.ts). */
    private readonly spanMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  use(id: string): Promise<boolean> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ id: storedProofId(id), resolve, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled || this.inFlight >= MAX_IN_FLIGHT || this.waiting.length === 0) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.flush();
    });
  }

  private flush(): void {
    if (this.inFlight >= MAX_IN_FLIGHT || this.waiting.length === 0) return;
    const batch = this.waiting.splice(0, MAX_BATCH);
    this.inFlight += 1;
    const expiresAt = Math.ceil((this.now() + this.spanMs) / 1000);
    this.record([...new Set(batch.map((waiting) => waiting.id))], expiresAt)
      .then(
        (written) => {
          const fresh = new Set(written);
          // Set.delete is true once per id: a second request with the same id in this batch is a replay.
          for (const waiting of batch) waiting.resolve(fresh.delete(waiting.id));
        },
        (error: unknown) => {
          for (const waiting of batch) waiting.reject(error);
        },
      )
      .finally(() => {
        this.inFlight -= 1;
        this.schedule();
      });
    this.schedule();
  }
}

/**
 * The id a proof is stored under: the first 128 bits of the SHA-256 of `id`, base64url (22 characters). A fixed
 * size whatever the proof's jti, and 2^64 proofs before two are likely to share one.
 */
export function storedProofId(id: string): string {
  return createHash('sha256').update(id, 'utf8').digest().subarray(0, 16).toString('base64url');
}

/** Rows are deleted this long after their proofs expired, so replicas whose clocks differ a little agree. */
const PRUNE_GRACE_SECONDS = 60;
const PRUNE_EVERY_MS = 60_000;

/**
 * The shared record on PostgreSQL, table `used_dpop_proof` (used-proof.entity.ts): each batch is one
 * `INSERT … ON CONFLICT DO NOTHING RETURNING id`, a statement prepared once per connection of the ORM's pool,
 * whose unique index decides between replicas (an insert racing another replica's for the same id waits for
 * it, then writes nothing). Every replica deletes expired rows once a minute.
 */
export class PostgresProofReplays
  implements SharedProofReplays, OnApplicationBootstrap, OnApplicationShutdown
{
  private readonly logger = new Logger('PostgresProofReplays');
  private readonly batches: BatchedProofReplays;
  private readonly table: string;
  private pool: Promise<Pool> | undefined;
  private pruneTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly orm: MikroORM,
    spanMs: number,
  ) {
    this.table = qualified(orm, 'used_dpop_proof');
    this.batches = new BatchedProofReplays((ids, expiresAt) => this.insert(ids, expiresAt), spanMs);
  }

  use(id: string): Promise<boolean> {
    return this.batches.use(id);
  }

  onApplicationBootstrap(): void {
    this.pruneTimer = setInterval(() => {
      this.prune().catch((error: unknown) =>
        this.logger.warn(`deleting expired DPoP proof ids failed: ${String(error)}`),
      );
    }, PRUNE_EVERY_MS).unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.pruneTimer);
  }

  /** Deletes the rows of proofs that every replica refuses as too old anyway; returns how many went. */
  async prune(now = Date.now()): Promise<number> {
    const result = await (
      await this.nativePool()
    ).query(`delete from ${this.table} where expires_at < $1`, [
      Math.floor(now / 1000) - PRUNE_GRACE_SECONDS,
    ]);
    return result.rowCount ?? 0;
  }

  private async insert(ids: readonly string[], expiresAt: number): Promise<string[]> {
    const result = await (
      await this.nativePool()
    ).query<{ id: string }>({
      name: 'atrium_used_dpop_proof',
      text:
        `insert into ${this.table} (id, expires_at) select unnest($1::varchar[]), $2::int ` +
        'on conflict (id) do nothing returning id',
      values: [ids, expiresAt],
    });
    return result.rows.map((row) => row.id);
  }

  /** The `pg` pool behind the ORM (MikroORM 7's native client on PostgreSQL). */
  private nativePool(): Promise<Pool> {
    return (this.pool ??= this.orm.em
      .getConnection()
      .getNativeClient()
      .then(
        (client) => client as Pool,
        (error: unknown) => {
          this.pool = undefined;
          throw error;
        },
      ));
  }
}

/** A table of the ORM's schema (MIKRO_ORM_SCHEMA, e.g. compose's `atrium`), for SQL of our own. */
function qualified(orm: MikroORM, table: string): string {
  const schema = orm.config.get('schema');
  return schema ? `"${schema.replaceAll('"', '""')}".${table}` : table;
}

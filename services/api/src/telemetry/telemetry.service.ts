import { Inject, Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { EntityManager } from '@mikro-orm/core';
import type { SqlEntityManager } from '@mikro-orm/sql';
import type { AuthenticatedUser } from '../auth/access-token.js';
import { isDatabaseUnavailable } from '../common/errors/database-availability.js';
import { RateLimitedError } from '../common/errors/domain-errors.js';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { countTelemetry } from '../metrics/metrics.js';
import { RegistryService } from '../registry/registry.service.js';
import { RemoteRollout } from '../registry/rollout.entity.js';
import { RolloutService } from '../registry/rollout.service.js';
import { RemoteVersion } from '../registry/remote-version.entity.js';
import { judgeCanary, type Tally } from './rollback-policy.js';
import { LATENCY_BUCKETS_MS, RemoteHealth } from './remote-health.entity.js';
import { ReportRateLimiter } from './report-rate-limiter.js';
import {
  type RemoteHealthDoc,
  type TelemetryBatch,
  type TelemetryReceipt,
  VITAL_NAMES,
  VITAL_RATINGS,
  type VersionReport,
} from './telemetry.schemas.js';

const MINUTE_MS = 60_000;

interface TallyRow {
  version: string;
  attempts: number | string;
  failures: number | string;
}
const PRUNE_EVERY_MS = 60 * MINUTE_MS;
/**
 * How often what was reported is written: reports are added up in memory and written at most this often, one
 * statement for everything since the last write, so a flood of reports costs one write a second, not one per
 * report (on SQLite each write waits for the disk while the API waits with it).
 */
export const TELEMETRY_WRITE_EVERY_MS = 1_000;

const histogramColumns = (prefix: string) => [
  ...LATENCY_BUCKETS_MS.map((bound) => `${prefix}_le${bound}`),
  `${prefix}_slower`,
];
const vitalColumns = VITAL_NAMES.flatMap((name) =>
  VITAL_RATINGS.map((rating) => `${name.toLowerCase()}_${rating.replace('-', '_')}`),
);
/** The counters of remote_health, as columns: what a report adds to. */
const COUNTER_COLUMNS = [
  'loads',
  'failed_download',
  'failed_integrity',
  'failed_timeout',
  'render_errors',
  'load_ms_sum',
  ...histogramColumns('load'),
  'renders',
  'render_ms_sum',
  ...histogramColumns('render'),
  ...vitalColumns,
] as const;

type Counters = Record<string, number>;

/** What a report adds to each counter of its version's row (every counter, most of them 0). */
function increments(report: VersionReport): Counters {
  const counters: Counters = Object.fromEntries(COUNTER_COLUMNS.map((column) => [column, 0]));
  const histogram = (prefix: string, samples: readonly number[]) => {
    for (const ms of samples) {
      const bound = LATENCY_BUCKETS_MS.find((limit) => ms <= limit);
      counters[bound === undefined ? `${prefix}_slower` : `${prefix}_le${bound}`]! += 1;
    }
  };
  counters['loads'] = report.loadMs.length;
  counters['failed_download'] = report.failures.download;
  counters['failed_integrity'] = report.failures.integrity;
  counters['failed_timeout'] = report.failures.timeout;
  counters['render_errors'] = report.failures.render;
  counters['load_ms_sum'] = report.loadMs.reduce((sum, ms) => sum + ms, 0);
  histogram('load', report.loadMs);
  counters['renders'] = report.renderMs.length;
  counters['render_ms_sum'] = report.renderMs.reduce((sum, ms) => sum + ms, 0);
  histogram('render', report.renderMs);
  for (const { name, rating } of report.vitals) {
    counters[`${name.toLowerCase()}_${rating.replace('-', '_')}`]! += 1;
  }
  return counters;
}

/** The aggregates not yet written, per remote, version and minute. */
interface Pending {
  readonly remote: string;
  readonly version: string;
  readonly minute: number;
  readonly counters: Counters;
}

const pendingKey = (remote: string, version: string, minute: number) =>
  `${remote}\u0000${version}\u0000${minute}`;

function addTo(target: Map<string, Pending>, entry: Pending): void {
  const key = pendingKey(entry.remote, entry.version, entry.minute);
  const existing = target.get(key);
  if (!existing) {
    target.set(key, { ...entry, counters: { ...entry.counters } });
    return;
  }
  for (const [column, value] of Object.entries(entry.counters)) {
    existing.counters[column] = (existing.counters[column] ?? 0) + value;
  }
}

/**
 * Field telemetry: the shell's reports are added to per-version, per-minute aggregates (no personal data:
 * see remote-health.entity.ts), in memory first and written every {@link TELEMETRY_WRITE_EVERY_MS}; every
 * batch that touches a running canary re-judges it against the stable version (rollback-policy.ts) on what is
 * written and what is not yet, rolling it back when it fails more beyond chance.
 */
@Injectable()
export class TelemetryService implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(TelemetryService.name);
  private readonly limiter: ReportRateLimiter;
  private pruneTimer: NodeJS.Timeout | undefined;
  private writeTimer: NodeJS.Timeout | undefined;
  /** Added up since the last write. */
  private pending = new Map<string, Pending>();
  /** The write under way, if any: one at a time. */
  private writing: Promise<void> | undefined;

  constructor(
    private readonly em: EntityManager,
    private readonly registry: RegistryService,
    private readonly rollouts: RolloutService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.limiter = new ReportRateLimiter(config.telemetry.reportsPerMinute);
  }

  onModuleInit(): void {
    // Both timers are made here, outside any request, so their work never runs as a request's.
    this.pruneTimer = setInterval(() => {
      this.prune().catch((error: unknown) => this.logger.warn(`pruning telemetry failed: ${String(error)}`));
    }, PRUNE_EVERY_MS);
    this.pruneTimer.unref();
    this.writeTimer = setInterval(() => {
      if (this.pending.size === 0) return;
      this.write().catch((error: unknown) =>
        this.logger.warn(`writing telemetry failed, kept for the next write: ${String(error)}`),
      );
    }, TELEMETRY_WRITE_EVERY_MS);
    this.writeTimer.unref();
  }

  /** On shutdown (before the database closes), what is not written yet is. */
  async onModuleDestroy(): Promise<void> {
    clearInterval(this.pruneTimer);
    clearInterval(this.writeTimer);
    await this.write().catch((error: unknown) =>
      this.logger.error(`telemetry of the last ${TELEMETRY_WRITE_EVERY_MS} ms was lost: ${String(error)}`),
    );
  }

  /**
   * Adds a person's batch to the aggregates. Only reports of the version that person is served now count: one
   * cannot inflate another version's numbers (or a canary's successes), nor grow the table with made-up names.
   */
  async record(user: AuthenticatedUser, batch: TelemetryBatch, now = new Date()): Promise<TelemetryReceipt> {
    const wait = this.limiter.take(user.sub);
    if (wait > 0)
      throw new RateLimitedError('Telemetry batches', this.config.telemetry.reportsPerMinute, wait);
    const served = await this.registry.servedVersions(
      user,
      batch.reports.map((report) => report.remote),
    );
    const accepted = batch.reports.filter((report) => served.get(report.remote)?.version === report.version);
    const minute = Math.floor(now.getTime() / MINUTE_MS);
    for (const report of accepted) {
      addTo(this.pending, {
        remote: report.remote,
        version: report.version,
        minute,
        counters: increments(report),
      });
    }
    countTelemetry(accepted.length, batch.reports.length - accepted.length);
    await this.judgeCanaries([
      ...new Set(
        accepted.filter((report) => served.get(report.remote)?.canaryRunning).map((report) => report.remote),
      ),
    ]);
    return { accepted: accepted.length, ignored: batch.reports.length - accepted.length };
  }

  /**
   * Writes what was added up since the last write: one statement per 100 rows, all in one transaction, each
   * adding to its row (another replica may have written the same minute). While the database is away the rows
   * are kept and go with the next write.
   */
  async write(): Promise<void> {
    // The write under way first (its failure is its own: its rows come back to be written now).
    while (this.writing) await this.writing.catch(() => undefined);
    if (this.pending.size === 0) return;
    const rows = [...this.pending.values()];
    this.pending = new Map();
    this.writing = this.em
      .fork()
      .transactional(async (em) => {
        for (let start = 0; start < rows.length; start += 100) {
          const chunk = rows.slice(start, start + 100);
          await (em as SqlEntityManager).execute(
            `insert into ${this.table()} (remote_name, version, minute, ${COUNTER_COLUMNS.join(', ')}) values ` +
              chunk.map(() => `(?, ?, ?, ${COUNTER_COLUMNS.map(() => '?').join(', ')})`).join(', ') +
              ' on conflict (remote_name, version, minute) do update set ' +
              COUNTER_COLUMNS.map(
                (column) => `${column} = remote_health.${column} + excluded.${column}`,
              ).join(', '),
            chunk.flatMap((row) => [
              row.remote,
              row.version,
              row.minute,
              ...COUNTER_COLUMNS.map((column) => row.counters[column] ?? 0),
            ]),
            'run',
          );
        }
      })
      .catch((error: unknown) => {
        // The database away: kept for the next write. Anything else (a remote deleted meanwhile, say) would
        // fail again every time: those rows are dropped, and said so.
        if (isDatabaseUnavailable(error)) {
          for (const row of rows) addTo(this.pending, row);
        } else {
          this.logger.error(
            `dropped ${rows.length} rows of telemetry that cannot be written: ${String(error)}`,
          );
        }
        throw error;
      })
      .finally(() => (this.writing = undefined));
    await this.writing;
  }

  /**
   * The aggregates' table for raw SQL, in the schema the ORM uses (MIKRO_ORM_SCHEMA on PostgreSQL, e.g. the
   * compose stack's `atrium`); inside the statement it is still called remote_health.
   */
  private table(): string {
    const schema = this.config.database.driver === 'postgresql' ? this.em.config.get('schema') : undefined;
    return schema ? `"${schema.replaceAll('"', '""')}".remote_health` : 'remote_health';
  }

  /** Re-judges the running canaries of `remotes` on everything reported since each started. */
  private async judgeCanaries(remotes: string[]): Promise<void> {
    if (remotes.length === 0) return;
    const canaries = await this.em.find(RemoteRollout, { state: 'running', remote: { $in: remotes } });
    for (const canary of canaries) {
      const name = canary.remote.name;
      const stable = await this.em.findOne(RemoteVersion, { remote: name, active: true });
      if (!stable) continue;
      const since = Math.floor(canary.startedAt.getTime() / MINUTE_MS);
      const tallies = await this.tallies(name, [canary.version, stable.version], since);
      const canaryTally = tallies.get(canary.version) ?? { attempts: 0, failures: 0 };
      const stableTally = tallies.get(stable.version) ?? { attempts: 0, failures: 0 };
      const verdict = judgeCanary(canaryTally, stableTally, this.config.rollback);
      if (!verdict.rollBack) continue;
      // The numbers behind the decision are written before it is taken.
      await this.write();
      const rolledBack = await this.rollouts.rollBack(name, canary.version, verdict.reason, {
        stableVersion: stable.version,
        canary: canaryTally,
        stable: stableTally,
        z: verdict.z,
        policy: this.config.rollback,
        since: new Date(since * MINUTE_MS).toISOString(),
      });
      if (rolledBack) this.logger.warn(`rolled back ${name}@${canary.version}: ${verdict.reason}`);
    }
  }

  private async tallies(
    remote: string,
    versions: string[],
    sinceMinute: number,
  ): Promise<Map<string, Tally>> {
    const rows: unknown = await this.em
      .getConnection()
      .execute(
        'select version, ' +
          'sum(loads + failed_download + failed_integrity + failed_timeout) as attempts, ' +
          'sum(failed_download + failed_integrity + failed_timeout + render_errors) as failures ' +
          `from ${this.table()} where remote_name = ? and minute >= ? and version in (?, ?) group by version`,
        [remote, sinceMinute, ...versions],
        'all',
      );
    // PostgreSQL's sum of int is a bigint, which the driver returns as a string.
    const tallies = new Map<string, Tally>(
      (rows as TallyRow[]).map((row) => [
        row.version,
        { attempts: Number(row.attempts), failures: Number(row.failures) },
      ]),
    );
    // And what this replica has not written yet.
    for (const { remote: name, version, minute, counters: c } of this.pending.values()) {
      if (name !== remote || minute < sinceMinute || !versions.includes(version)) continue;
      const failed = (c['failed_download'] ?? 0) + (c['failed_integrity'] ?? 0) + (c['failed_timeout'] ?? 0);
      const tally = tallies.get(version) ?? { attempts: 0, failures: 0 };
      tallies.set(version, {
        attempts: tally.attempts + (c['loads'] ?? 0) + failed,
        failures: tally.failures + failed + (c['render_errors'] ?? 0),
      });
    }
    return tallies;
  }

  /** A remote's field health per version per minute since `minutes` ago (for the admin console). */
  async health(remote: string, minutes: number, now = new Date()): Promise<RemoteHealthDoc> {
    await this.write();
    const since = Math.floor(now.getTime() / MINUTE_MS) - minutes;
    const rows = await this.em.find(
      RemoteHealth,
      { remote, minute: { $gte: since } },
      { orderBy: { version: 'asc', minute: 'asc' } },
    );
    const byVersion = new Map<string, RemoteHealthDoc['versions'][number]['points']>();
    for (const row of rows) {
      const points = byVersion.get(row.version) ?? [];
      const failuresByKind = {
        download: row.failedDownload,
        integrity: row.failedIntegrity,
        timeout: row.failedTimeout,
        render: row.renderErrors,
      };
      points.push({
        minute: new Date(row.minute * MINUTE_MS).toISOString(),
        attempts: row.loads + row.failedDownload + row.failedIntegrity + row.failedTimeout,
        failures: Object.values(failuresByKind).reduce((sum, n) => sum + n, 0),
        failuresByKind,
        loadMsMean: row.loads ? Number(row.loadMsSum) / row.loads : null,
        renderMsMean: row.renders ? Number(row.renderMsSum) / row.renders : null,
        poorVitals: row.lcpPoor + row.inpPoor + row.clsPoor,
        vitals:
          row.lcpGood +
          row.lcpNeedsImprovement +
          row.lcpPoor +
          row.inpGood +
          row.inpNeedsImprovement +
          row.inpPoor +
          row.clsGood +
          row.clsNeedsImprovement +
          row.clsPoor,
      });
      byVersion.set(row.version, points);
    }
    return {
      remote,
      since: new Date(since * MINUTE_MS).toISOString(),
      versions: [...byVersion].map(([version, points]) => ({ version, points })),
    };
  }

  /** Deletes aggregates older than TELEMETRY_RETENTION_DAYS; returns how many rows went. */
  async prune(now = new Date()): Promise<number> {
    await this.write();
    const cutoff = Math.floor(now.getTime() / MINUTE_MS) - this.config.telemetry.retentionDays * 24 * 60;
    return this.em.fork().nativeDelete(RemoteHealth, { minute: { $lt: cutoff } });
  }
}

import { Inject, Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { EntityManager } from '@mikro-orm/core';
import type { SqlEntityManager } from '@mikro-orm/sql';
import { type AuthenticatedUser, requirePersonalSession } from '../auth/index.js';
import { isDatabaseUnavailable } from '../common/errors/database-availability.js';
import { RateLimitedError } from '../common/errors/domain-errors.js';
import { APP_CONFIG, type AppConfig } from '../config/index.js';
import { countTelemetry } from '../metrics/index.js';
import { RegistryService } from '../registry/index.js';
import { type CanaryHealth, CanaryJudge, type Tally } from '../rollout/index.js';
import { CanaryReporter, reporterId } from './canary-reporter.entity.js';
import { LATENCY_BUCKETS_MS, RemoteHealth } from './remote-health.entity.js';
import { ReportRateLimiter } from './report-rate-limiter.js';
import { quotaPersonId, TelemetryQuota } from './telemetry-quota.entity.js';
import {
  type RemoteHealthDoc,
  type TelemetryBatch,
  type TelemetryReceipt,
  VITAL_NAMES,
  VITAL_RATINGS,
  type VersionReport,
} from './telemetry.schemas.js';

const MINUTE_MS = 60_000;

/** A side's tally as the database returns it (PostgreSQL's sums and counts as strings). */
interface TallyRow {
  version: string;
  attempts: number | string | null;
  failures: number | string | null;
  reporters: number | string;
}
const PRUNE_EVERY_MS = 60 * MINUTE_MS;
/** How often the shared per-person counts of minutes that are over are deleted (PostgreSQL). */
const PRUNE_QUOTA_EVERY_MS = MINUTE_MS;
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

/** What one person reported about one side of a running canary in one window, not yet written. */
interface PendingVoice {
  readonly remote: string;
  readonly version: string;
  readonly canaryStartedAt: number;
  readonly windowStart: number;
  readonly reporter: string;
  attempts: number;
  failures: number;
}

function addVoice(target: Map<string, PendingVoice>, voice: PendingVoice): void {
  const key = [voice.remote, voice.version, voice.canaryStartedAt, voice.windowStart, voice.reporter].join(
    '\u0000',
  );
  const existing = target.get(key);
  if (!existing) {
    target.set(key, { ...voice });
    return;
  }
  existing.attempts += voice.attempts;
  existing.failures += voice.failures;
}

/** Loads a report tried (succeeded or failed to load), and loads that failed (to load, or to render). */
function attemptsOf(report: VersionReport): { attempts: number; failures: number } {
  const { download, integrity, timeout, render } = report.failures;
  const failedToLoad = download + integrity + timeout;
  return { attempts: report.loadMs.length + failedToLoad, failures: failedToLoad + render };
}

/**
 * Field telemetry: the shell's reports are added to per-version, per-minute aggregates (no personal data:
 * see remote-health.entity.ts), in memory first and written every {@link TELEMETRY_WRITE_EVERY_MS}. Reports
 * about a remote with a running canary are also tallied per person and window (canary-reporter.entity.ts):
 * after each write, the canaries that got reports go to the rollout module's CanaryJudge, which reads these
 * tallies through its CanaryHealth interface (implemented here) and decides whether to roll back.
 */
@Injectable()
export class TelemetryService implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(TelemetryService.name);
  private readonly limiter: ReportRateLimiter;
  private pruneTimer: NodeJS.Timeout | undefined;
  private pruneQuotaTimer: NodeJS.Timeout | undefined;
  private writeTimer: NodeJS.Timeout | undefined;
  /** Added up since the last write. */
  private pending = new Map<string, Pending>();
  /** Canary reports per person and window since the last write. */
  private voices = new Map<string, PendingVoice>();
  /** Remotes whose canary got reports since it was last judged. */
  private readonly unjudged = new Set<string>();
  /** The write under way, if any: one at a time. */
  private writing: Promise<void> | undefined;

  constructor(
    private readonly em: EntityManager,
    private readonly registry: RegistryService,
    private readonly judge: CanaryJudge,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    // On PostgreSQL any number of replicas share one count per person; a SQLite API is one process.
    this.limiter = new ReportRateLimiter(
      config.telemetry.reportsPerMinute,
      config.database.driver === 'postgresql'
        ? (sub, windowStart) => this.countBatch(sub, windowStart)
        : undefined,
    );
  }

  onModuleInit(): void {
    // Both timers are made here, outside any request, so their work never runs as a request's.
    this.pruneTimer = setInterval(() => {
      this.prune().catch((error: unknown) => this.logger.warn(`pruning telemetry failed: ${String(error)}`));
    }, PRUNE_EVERY_MS);
    this.pruneTimer.unref();
    if (this.config.database.driver === 'postgresql') {
      this.pruneQuotaTimer = setInterval(() => {
        this.pruneQuota().catch((error: unknown) =>
          this.logger.warn(`pruning telemetry quotas failed: ${String(error)}`),
        );
      }, PRUNE_QUOTA_EVERY_MS);
      this.pruneQuotaTimer.unref();
    }
    this.writeTimer = setInterval(() => {
      if (this.pending.size === 0 && this.voices.size === 0 && this.unjudged.size === 0) return;
      this.writeAndJudge().catch((error: unknown) =>
        this.logger.warn(`writing telemetry failed, kept for the next write: ${String(error)}`),
      );
    }, TELEMETRY_WRITE_EVERY_MS);
    this.writeTimer.unref();
  }

  /** On shutdown (before the database closes), what is not written yet is. */
  async onModuleDestroy(): Promise<void> {
    clearInterval(this.pruneTimer);
    clearInterval(this.pruneQuotaTimer);
    clearInterval(this.writeTimer);
    await this.write().catch((error: unknown) =>
      this.logger.error(`telemetry of the last ${TELEMETRY_WRITE_EVERY_MS} ms was lost: ${String(error)}`),
    );
  }

  /**
   * Adds a person's batch to the aggregates. Only a person's token counts (a machine client's is refused), and
   * only reports of the version that person is served now: one cannot inflate another version's numbers (or a
   * canary's successes), nor grow the table with made-up names. The schema has bounded each report to what one
   * page can produce; a running canary's verdict caps each person's share per window on top.
   */
  async record(user: AuthenticatedUser, batch: TelemetryBatch, now = new Date()): Promise<TelemetryReceipt> {
    requirePersonalSession(user, this.config, 'report field telemetry');
    const wait = await this.limiter.take(user.sub);
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
      const { attempts, failures } = attemptsOf(report);
      const canaryStartedAt = served.get(report.remote)?.canaryStartedAt;
      if (canaryStartedAt == null || attempts === 0) continue;
      addVoice(this.voices, {
        remote: report.remote,
        version: report.version,
        canaryStartedAt,
        windowStart: this.windowStart(canaryStartedAt, minute),
        reporter: reporterId(report.remote, user.sub),
        attempts,
        failures,
      });
      this.unjudged.add(report.remote);
    }
    countTelemetry(accepted.length, batch.reports.length - accepted.length);
    return { accepted: accepted.length, ignored: batch.reports.length - accepted.length };
  }

  /**
   * Counts one batch of the person's in the minute that starts at `windowStart` (ms), for every replica (one
   * UPSERT on telemetry_quota), and returns the minute's count so far.
   */
  private async countBatch(sub: string, windowStart: number): Promise<number> {
    const row: unknown = await this.em
      .getConnection()
      .execute(
        `insert into ${this.table('telemetry_quota')} (minute, person, used) values (?, ?, 1) ` +
          'on conflict (minute, person) do update set used = telemetry_quota.used + 1 returning used',
        [windowStart / MINUTE_MS, quotaPersonId(sub)],
        'get',
      );
    return Number((row as { used: number | string }).used);
  }

  /** Deletes the per-person counts of minutes that are over; returns how many went. */
  async pruneQuota(now = new Date()): Promise<number> {
    return this.em
      .fork()
      .nativeDelete(TelemetryQuota, { minute: { $lt: Math.floor(now.getTime() / MINUTE_MS) } });
  }

  /**
   * The first minute of the person's window that `minute` falls in: windows of ROLLBACK_PERSON_WINDOW_MINUTES
   * counted from the canary's start.
   */
  private windowStart(canaryStartedAt: number, minute: number): number {
    const start = Math.floor(canaryStartedAt / MINUTE_MS);
    const window = this.config.rollback.personWindowMinutes;
    return start + Math.floor(Math.max(0, minute - start) / window) * window;
  }

  /**
   * Writes what was reported, then judges the canaries it was about (the write timer's work). Which canaries is
   * taken before the write: a report that arrives while it runs is not in it, so its canary is judged after the
   * next write, on numbers that include it.
   */
  async writeAndJudge(): Promise<void> {
    const remotes = [...this.unjudged];
    this.unjudged.clear();
    try {
      await this.write();
      await this.judge.judge(remotes, this.canaryHealth);
    } catch (error) {
      // Judged again after the next write.
      for (const remote of remotes) this.unjudged.add(remote);
      throw error;
    }
  }

  /**
   * Writes what was added up since the last write: one statement per 100 rows, all in one transaction, each
   * adding to its row (another replica may have written the same minute, or the same person's window). While
   * the database is away the rows are kept and go with the next write.
   */
  async write(): Promise<void> {
    // The write under way first (its failure is its own: its rows come back to be written now).
    while (this.writing) await this.writing.catch(() => undefined);
    if (this.pending.size === 0 && this.voices.size === 0) return;
    const rows = [...this.pending.values()];
    const voices = [...this.voices.values()];
    this.pending = new Map();
    this.voices = new Map();
    this.writing = this.em
      .fork()
      .transactional(async (em) => {
        const execute = (sql: string, params: unknown[]) =>
          (em as SqlEntityManager).execute(sql, params, 'run');
        for (let start = 0; start < rows.length; start += 100) {
          const chunk = rows.slice(start, start + 100);
          await execute(
            `insert into ${this.table('remote_health')} (remote_name, version, minute, ${COUNTER_COLUMNS.join(', ')}) values ` +
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
          );
        }
        for (let start = 0; start < voices.length; start += 100) {
          const chunk = voices.slice(start, start + 100);
          await execute(
            `insert into ${this.table('canary_reporter')} ` +
              '(remote_name, version, canary_started_at, window_start, reporter, attempts, failures) values ' +
              chunk.map(() => '(?, ?, ?, ?, ?, ?, ?)').join(', ') +
              ' on conflict (remote_name, version, canary_started_at, window_start, reporter) do update set ' +
              'attempts = canary_reporter.attempts + excluded.attempts, ' +
              'failures = canary_reporter.failures + excluded.failures',
            chunk.flatMap((voice) => [
              voice.remote,
              voice.version,
              voice.canaryStartedAt,
              voice.windowStart,
              voice.reporter,
              voice.attempts,
              voice.failures,
            ]),
          );
        }
      })
      .catch((error: unknown) => {
        // The database away: kept for the next write. Anything else (a remote deleted meanwhile, say) would
        // fail again every time: those rows are dropped, and said so.
        if (isDatabaseUnavailable(error)) {
          for (const row of rows) addTo(this.pending, row);
          for (const voice of voices) addVoice(this.voices, voice);
        } else {
          this.logger.error(
            `dropped ${rows.length + voices.length} rows of telemetry that cannot be written: ${String(error)}`,
          );
        }
        throw error;
      })
      .finally(() => (this.writing = undefined));
    await this.writing;
  }

  /**
   * A telemetry table for raw SQL, in the schema the ORM uses (MIKRO_ORM_SCHEMA on PostgreSQL, e.g. the compose
   * stack's `atrium`); inside the statement it is still called by its bare name.
   */
  private table(name: 'remote_health' | 'canary_reporter' | 'telemetry_quota'): string {
    const schema = this.config.database.driver === 'postgresql' ? this.em.config.get('schema') : undefined;
    return schema ? `"${schema.replaceAll('"', '""')}".${name}` : name;
  }

  /** The tallies the rollout module's CanaryJudge reads a canary's health from. */
  private readonly canaryHealth: CanaryHealth = {
    tallies: (em, remote, versions, canaryStartedAt) => this.tallies(em, remote, versions, canaryStartedAt),
    forget: async (remote) => {
      await this.em.fork().nativeDelete(CanaryReporter, { remote });
    },
  };

  /**
   * Per side of a running canary, the loads since it started with each person's share capped per window (at
   * their own failure rate, ROLLBACK_MAX_LOADS_PER_PERSON), and how many distinct people reported them.
   */
  private async tallies(
    em: EntityManager,
    remote: string,
    versions: readonly [string, string],
    canaryStartedAt: Date,
  ): Promise<ReadonlyMap<string, Tally>> {
    const cap = this.config.rollback.maxLoadsPerPerson;
    const rows: unknown = await em
      .getConnection()
      .execute(
        'select version, count(distinct reporter) as reporters, ' +
          'sum(case when attempts > ? then ? else attempts end) as attempts, ' +
          'sum(case when attempts > ? then failures * 1.0 * ? / attempts else failures end) as failures ' +
          `from ${this.table('canary_reporter')} ` +
          'where remote_name = ? and version in (?, ?) and canary_started_at = ? and attempts > 0 ' +
          'group by version',
        [cap, cap, cap, cap, remote, versions[0], versions[1], canaryStartedAt.getTime()],
        'all',
      );
    return new Map<string, Tally>(
      (rows as TallyRow[]).map((row) => [
        row.version,
        {
          attempts: Number(row.attempts ?? 0),
          failures: Number(row.failures ?? 0),
          reporters: Number(row.reporters),
        },
      ]),
    );
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
    const canary = await this.judge.evidence(this.em, remote, this.canaryHealth);
    return {
      remote,
      since: new Date(since * MINUTE_MS).toISOString(),
      versions: [...byVersion].map(([version, points]) => ({ version, points })),
      canary: canary && {
        version: canary.version,
        stableVersion: canary.stableVersion,
        since: canary.since,
        canary: canary.canary,
        stable: canary.stable,
        needs: canary.needs,
        reason: canary.verdict.reason,
      },
    };
  }

  /**
   * Deletes aggregates older than TELEMETRY_RETENTION_DAYS, and who reported about canaries that no longer run
   * (or longer ago than that); returns how many aggregate rows went.
   */
  async prune(now = new Date()): Promise<number> {
    await this.write();
    const cutoff = Math.floor(now.getTime() / MINUTE_MS) - this.config.telemetry.retentionDays * 24 * 60;
    const em = this.em.fork();
    const running = await this.judge.running(em);
    await em.nativeDelete(CanaryReporter, {
      $or: [{ windowStart: { $lt: cutoff } }, { remote: { $nin: running } }],
    });
    return em.nativeDelete(RemoteHealth, { minute: { $lt: cutoff } });
  }
}

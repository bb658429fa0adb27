import { Inject, Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { EntityManager } from '@mikro-orm/core';
import type { AuthenticatedUser } from '../auth/access-token.js';
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
import type {
  RemoteHealthDoc,
  TelemetryBatch,
  TelemetryReceipt,
  VersionReport,
} from './telemetry.schemas.js';

const MINUTE_MS = 60_000;

interface TallyRow {
  version: string;
  attempts: number | string;
  failures: number | string;
}
const PRUNE_EVERY_MS = 60 * MINUTE_MS;

/** The remote_health columns a report adds to, with what it adds. */
function increments(report: VersionReport): Record<string, number> {
  const histogram = (prefix: string, samples: readonly number[]) => {
    const buckets: Record<string, number> = {};
    for (const bound of LATENCY_BUCKETS_MS) buckets[`${prefix}_le${bound}`] = 0;
    buckets[`${prefix}_slower`] = 0;
    for (const ms of samples) {
      const bound = LATENCY_BUCKETS_MS.find((limit) => ms <= limit);
      buckets[bound === undefined ? `${prefix}_slower` : `${prefix}_le${bound}`]! += 1;
    }
    return buckets;
  };
  const vitals: Record<string, number> = {};
  for (const { name, rating } of report.vitals) {
    const column = `${name.toLowerCase()}_${rating.replace('-', '_')}`;
    vitals[column] = (vitals[column] ?? 0) + 1;
  }
  return {
    loads: report.loadMs.length,
    failed_download: report.failures.download,
    failed_integrity: report.failures.integrity,
    failed_timeout: report.failures.timeout,
    render_errors: report.failures.render,
    load_ms_sum: report.loadMs.reduce((sum, ms) => sum + ms, 0),
    ...histogram('load', report.loadMs),
    renders: report.renderMs.length,
    render_ms_sum: report.renderMs.reduce((sum, ms) => sum + ms, 0),
    ...histogram('render', report.renderMs),
    ...vitals,
  };
}

/**
 * Field telemetry: the shell's reports are added to per-version, per-minute aggregates (no personal data:
 * see remote-health.entity.ts), and every batch that touches a running canary re-judges it against the stable
 * version (rollback-policy.ts), rolling it back when it fails more beyond chance.
 */
@Injectable()
export class TelemetryService implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(TelemetryService.name);
  private readonly limiter: ReportRateLimiter;
  private pruneTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly em: EntityManager,
    private readonly registry: RegistryService,
    private readonly rollouts: RolloutService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.limiter = new ReportRateLimiter(config.telemetry.reportsPerMinute);
  }

  onModuleInit(): void {
    this.pruneTimer = setInterval(() => {
      this.prune().catch((error: unknown) => this.logger.warn(`pruning telemetry failed: ${String(error)}`));
    }, PRUNE_EVERY_MS);
    this.pruneTimer.unref();
  }

  onModuleDestroy(): void {
    clearInterval(this.pruneTimer);
  }

  /**
   * Adds a person's batch to the aggregates. Only reports of the version that person is served now count: one
   * cannot inflate another version's numbers (or a canary's successes), nor grow the table with made-up names.
   */
  async record(user: AuthenticatedUser, batch: TelemetryBatch, now = new Date()): Promise<TelemetryReceipt> {
    const wait = this.limiter.take(user.sub);
    if (wait > 0)
      throw new RateLimitedError('Telemetry batches', this.config.telemetry.reportsPerMinute, wait);
    const served = new Map(
      (await this.registry.listForUser(user)).remotes.map((entry) => [entry.name, entry.version]),
    );
    const accepted = batch.reports.filter((report) => served.get(report.remote) === report.version);
    const minute = Math.floor(now.getTime() / MINUTE_MS);
    const connection = this.em.getConnection();
    const table = this.table();
    for (const report of accepted) {
      const columns = Object.entries(increments(report));
      await connection.execute(
        `insert into ${table} (remote_name, version, minute, ${columns.map(([column]) => column).join(', ')}) ` +
          `values (?, ?, ?, ${columns.map(() => '?').join(', ')}) ` +
          'on conflict (remote_name, version, minute) do update set ' +
          columns.map(([column]) => `${column} = remote_health.${column} + excluded.${column}`).join(', '),
        [report.remote, report.version, minute, ...columns.map(([, value]) => value)],
        'run',
      );
    }
    countTelemetry(accepted.length, batch.reports.length - accepted.length);
    await this.judgeCanaries([...new Set(accepted.map((report) => report.remote))]);
    return { accepted: accepted.length, ignored: batch.reports.length - accepted.length };
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
    return new Map(
      (rows as TallyRow[]).map((row) => [
        row.version,
        { attempts: Number(row.attempts), failures: Number(row.failures) },
      ]),
    );
  }

  /** A remote's field health per version per minute since `minutes` ago (for the admin console). */
  async health(remote: string, minutes: number, now = new Date()): Promise<RemoteHealthDoc> {
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
    const cutoff = Math.floor(now.getTime() / MINUTE_MS) - this.config.telemetry.retentionDays * 24 * 60;
    return this.em.fork().nativeDelete(RemoteHealth, { minute: { $lt: cutoff } });
  }
}

import { EntityManager } from '@mikro-orm/core';
import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { setImmediate as yieldToRequests } from 'node:timers/promises';
import { APP_CONFIG, type AppConfig } from '../config/index.js';
import { AuditEvent } from './audit-event.entity.js';

const DAY_MS = 86_400_000;
/** How often the retention runs while the API is up. */
const PRUNE_INTERVAL_MS = 60 * 60 * 1000;
/** Rows per delete: each batch is its own short statement, so no lock is held for long. */
export const PRUNE_BATCH_SIZE = 1000;

/**
 * Deletes audit entries older than `AUDIT_RETENTION_DAYS` (0 keeps them forever): at start-up and every hour,
 * oldest first, in batches of {@link PRUNE_BATCH_SIZE} rows found through the (occurred_at, id) index, each
 * its own statement and transaction, with requests served between batches. Several replicas may prune at the
 * same time: a row deleted twice is deleted once.
 */
@Injectable()
export class AuditRetention implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('AuditRetention');
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> | undefined;

  constructor(
    private readonly em: EntityManager,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onApplicationBootstrap(): void {
    if (this.config.auditRetentionDays === 0) return;
    const run = () => {
      this.running ??= this.prune()
        .then((deleted) => {
          if (deleted > 0) this.logger.log(`pruned ${deleted} audit entries older than the retention`);
        })
        .catch((error: unknown) =>
          this.logger.warn(`audit retention failed, retrying in an hour: ${String(error)}`),
        )
        .finally(() => (this.running = undefined));
    };
    run();
    this.timer = setInterval(run, PRUNE_INTERVAL_MS).unref();
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  /** Deletes every entry that occurred before `now` minus the retention, batch by batch; returns how many. */
  async prune(now: Date = new Date(), batchSize: number = PRUNE_BATCH_SIZE): Promise<number> {
    if (this.config.auditRetentionDays === 0) return 0;
    const cutoff = new Date(now.getTime() - this.config.auditRetentionDays * DAY_MS);
    const em = this.em.fork();
    let deleted = 0;
    for (;;) {
      const batch = await em.find(
        AuditEvent,
        { occurredAt: { $lt: cutoff } },
        {
          fields: ['id'],
          orderBy: { occurredAt: 'asc', id: 'asc' },
          limit: batchSize,
          disableIdentityMap: true,
        },
      );
      if (batch.length === 0) return deleted;
      deleted += await em.nativeDelete(AuditEvent, { id: { $in: batch.map((event) => event.id) } });
      if (batch.length < batchSize) return deleted;
      await yieldToRequests();
    }
  }
}

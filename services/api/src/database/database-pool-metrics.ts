import { Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { MikroORM } from '@mikro-orm/core';
import type { Pool } from 'pg';
import { type DatabasePoolState, watchDatabasePool } from '../metrics/index.js';

/**
 * How to read a driver's native client (MikroORM 7's `getNativeClient()`): on PostgreSQL the `pg` pool behind
 * the Kysely dialect, with its counts; on SQLite the better-sqlite3 database, one connection and no pool.
 */
export function databasePoolReader(native: unknown): () => DatabasePoolState {
  if (native !== null && typeof native === 'object' && 'waitingCount' in native) {
    const pool = native as Pool;
    return () => ({
      driver: 'postgresql',
      open: pool.totalCount,
      idle: pool.idleCount,
      waiting: pool.waitingCount,
      max: pool.options.max ?? 10,
    });
  }
  const database = native as { readonly open: boolean };
  return () => ({ driver: 'sqlite', open: database.open ? 1 : 0, max: 1 });
}

/** Reports the database pool to Prometheus (`atrium_db_pool_*`, metrics.ts) while the application runs. */
@Injectable()
export class DatabasePoolMetrics implements OnApplicationBootstrap, OnApplicationShutdown {
  private unwatch: (() => void) | undefined;

  constructor(private readonly orm: MikroORM) {}

  async onApplicationBootstrap(): Promise<void> {
    this.unwatch = watchDatabasePool(databasePoolReader(await this.orm.em.getConnection().getNativeClient()));
  }

  onApplicationShutdown(): void {
    this.unwatch?.();
  }
}

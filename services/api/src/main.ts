import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { ConfigError, ensureDatabaseDirectory, loadConfig } from './config/index.js';

let config;
try {
  config = loadConfig(process.env);
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
  console.error(`${error.message}\nThe API did not start. Fix the variables above and start it again.`);
  process.exit(78); // EX_CONFIG
}

// Tracing patches `http` and `pg` as they load, so it starts before the application's modules are imported:
// they are imported below, after it (tracing/tracing.ts).
const tracing = config.tracing
  ? (await import('./tracing/index.js')).startTracing(config.tracing, new Logger('Tracing'))
  : undefined;
const { createApp } = await import('./create-app.js');
const { migrateDatabase } = await import('./database/index.js');
const { startMetricsServer } = await import('./metrics/index.js');

ensureDatabaseDirectory(config);
const logger = new Logger('Bootstrap');
if (config.migrateOnBoot) {
  // Development convenience only (DB_MIGRATE_ON_BOOT=true): deployments run `npm run migrate` once instead.
  const applied = await migrateDatabase(config.database);
  logger.log(applied.length ? `Applied migrations: ${applied.join(', ')}` : 'Schema is up to date');
}
const app = await createApp(config);
if (tracing) {
  // After the server has closed (shutdown), the spans still buffered are sent before the process ends.
  app
    .getHttpAdapter()
    .getInstance()
    .addHook('onClose', async () => tracing.shutdown());
}
await app.listen({ port: config.port, host: config.host });
logger.log(`Atrium API listening on http://${config.host}:${config.port}/api`);
if (config.tracing) logger.log(`Tracing: spans go to ${config.tracing.tracesUrl}`);
try {
  const metrics = await startMetricsServer(config.metrics.port, config.metrics.host);
  // Never what keeps the process alive: it ends when the API has shut down.
  metrics.unref();
  logger.log(`Prometheus metrics on http://${config.metrics.host}:${config.metrics.port}/metrics`);
} catch (error) {
  // Another process on this host holds the port (e.g. a second replica started locally): the API serves on,
  // unscraped, and says so; give each process its own METRICS_PORT.
  logger.error(`Prometheus metrics are NOT served: ${String(error)}. Set METRICS_PORT to a free port.`);
}

import { type LogLevel } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { AppModule } from './app.module.js';
import type { AppConfig } from './config/app-config.js';

const LEVELS: readonly LogLevel[] = ['fatal', 'error', 'warn', 'log', 'debug', 'verbose'];
// Profile and preference bodies are tiny; a small limit turns abuse into a cheap 413.
const BODY_LIMIT_BYTES = 64 * 1024;

/**
 * Builds the API application (not yet listening) from a validated configuration: Fastify, the `/api`
 * prefix, CORS for the configured origins only. `main.ts` and the tests both start it from here.
 */
export async function createApp(
  config: AppConfig,
  options: { logger?: false | LogLevel[] } = {},
): Promise<NestFastifyApplication> {
  const app = await NestFactory.create<NestFastifyApplication>(
    AppModule.forRoot(config),
    new FastifyAdapter({ bodyLimit: BODY_LIMIT_BYTES, logger: false }),
    { logger: options.logger ?? LEVELS.slice(0, LEVELS.indexOf(config.logLevel) + 1), abortOnError: false },
  );
  app.setGlobalPrefix('api');
  app.enableCors({
    origin: [...config.corsOrigins],
    methods: ['GET', 'HEAD', 'PUT', 'POST', 'PATCH', 'DELETE'],
    allowedHeaders: ['Authorization', 'Content-Type'],
    maxAge: 600,
  });
  app.enableShutdownHooks();
  return app;
}

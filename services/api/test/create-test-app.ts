import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { LightMyRequestResponse } from 'fastify';
import type { DestinationStream } from 'pino';
import { SigningKeySource } from '../src/auth/signing-key-source.js';
import type { AppConfig } from '../src/config/app-config.js';
import { loadConfig } from '../src/config/env.schema.js';
import { createApp } from '../src/create-app.js';
import { migrateDatabase } from '../src/database/migrate-database.js';
import { authorizationFor, type BoundToken } from '@atrium/test-support/dpop';

export interface TestApp {
  readonly app: NestFastifyApplication;
  readonly config: AppConfig;
  /** Sends a request through Fastify's inject (no socket). */
  request(options: {
    method?: 'GET' | 'PUT' | 'POST' | 'DELETE' | 'OPTIONS' | 'PATCH';
    url: string;
    /** A bearer token, or a bound token sent as DPoP with a fresh proof for this request. */
    token?: string | BoundToken;
    headers?: Record<string, string>;
    body?: unknown;
    rawBody?: string;
  }): Promise<LightMyRequestResponse>;
  /** Resolves once the issuer's keys are loaded (discovery runs in the background). */
  waitForIssuer(timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

/**
 * Boots the real API (all modules, guard, filter, Fastify) with the given environment, like `main.ts`
 * does, but without listening. Without DATABASE_URL it uses a fresh SQLite file; `migrate` (default
 * true) applies the migrations first. Passport keeps strategies in a process-wide registry, so close
 * one test app before booting the next in the same file.
 */
export async function createTestApp(
  env: Record<string, string>,
  options: {
    migrate?: boolean;
    logDestination?: DestinationStream;
    /** Nest's and the services' own lines too (default: only request logs). */
    nestLogs?: boolean;
  } = {},
): Promise<TestApp> {
  const scratch = env['DATABASE_URL'] ? undefined : mkdtempSync(join(tmpdir(), 'atrium-api-test-'));
  const config = loadConfig({
    // The specs' API is a development one: the secrets it needs have their development values (the realm file's).
    NODE_ENV: 'development',
    LOG_LEVEL: 'error',
    // Specs of other features mint plain tokens for the shell's client; the rule that its tokens must be
    // DPoP-bound (default `atrium-shell`) is proven by the specs that set it (auth/dpop.spec.ts).
    OIDC_DPOP_REQUIRED_CLIENTS: 'none',
    // Copying Keycloak's events runs only where a spec asks for it (account/*.int-spec.ts).
    KEYCLOAK_EVENTS_POLL_SECONDS: '0',
    // Specs insert audit entries with whatever timestamps they need; retention is proven where it is set.
    AUDIT_RETENTION_DAYS: '0',
    ...(scratch ? { DATABASE_URL: `sqlite:${join(scratch, 'atrium.db')}` } : {}),
    ...env,
  });
  if (options.migrate ?? true) await migrateDatabase(config.database);
  const app = await createApp(config, {
    ...(options.nestLogs ? {} : { logger: false as const }),
    ...(options.logDestination ? { logDestination: options.logDestination } : {}),
  });
  await app.init();
  await app.getHttpAdapter().getInstance().ready();
  const keys = app.get(SigningKeySource);

  return {
    app,
    config,
    async request({ method = 'GET', url, token, headers = {}, body, rawBody }) {
      const allHeaders: Record<string, string> = {
        ...(token === undefined ? {} : await authorizationFor(token, method, `${config.apiPublicUrl}${url}`)),
        ...headers,
      };
      let payload: string | undefined = rawBody;
      if (body !== undefined) {
        payload = JSON.stringify(body);
        allHeaders['content-type'] ??= 'application/json';
      }
      return app.inject({ method, url, headers: allHeaders, ...(payload !== undefined ? { payload } : {}) });
    },
    async waitForIssuer(timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (!keys.state().ready) {
        if (Date.now() > deadline) throw new Error(`issuer keys not loaded within ${timeoutMs} ms`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    async close() {
      await app.close();
      if (scratch) rmSync(scratch, { recursive: true, force: true });
    },
  };
}

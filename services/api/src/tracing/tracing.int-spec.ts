// The API as it is deployed (`node dist/main.js`, tracing started before the application loads) with an OTLP
// endpoint: a request that arrives with a W3C `traceparent`, as the shell sends it, is one trace with the
// caller's span as the parent of the API's HTTP server span and the PostgreSQL queries below that span. The
// receiver stands for the operator's collector; PostgreSQL and Keycloak are the real ones of the tier.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { authorizationFor, type BoundToken } from '@atrium/test-support/dpop';
import { adminQuery, databaseUrlFor } from '@atrium/test-support/postgres';
import { signIn } from '@atrium/test-support/browser';
import { freePort } from '@atrium/infra-lib/ports';
import {
  type OtlpReceiver,
  type ReceivedSpan,
  SPAN_KIND,
  startOtlpReceiver,
} from '@atrium/test-support/otlp';
import { migrateDatabase } from '../database/index.js';

const issuer = inject('oidcIssuerUrl');
const adminUrl = inject('postgresAdminUrl');
const apiDir = join(import.meta.dirname, '../..');
const repoRoot = join(apiDir, '../..');
const databaseName = `atrium_it_tracing_${randomBytes(3).toString('hex')}`;
const databaseUrl = databaseUrlFor(adminUrl, databaseName);
/** Bounds every wait of this file: start-up, the shutdown that sends the buffered spans. */
const WAIT_MS = 30_000;

let receiver: OtlpReceiver;
let api: ChildProcess | undefined;
let base: string;
const logLines: Array<Record<string, unknown>> = [];
let exited: Promise<void>;

beforeAll(async () => {
  // The API runs from its build, as deployed: rebuilt here only when its sources are newer (npm test builds first).
  const build = new URL('../../../../infra/dev/build.ts', import.meta.url).href;
  const { buildStale } = (await import(/* @vite-ignore */ build)) as {
    buildStale: (root: string, log: (line: string) => void, only?: readonly string[]) => Promise<void>;
  };
  await buildStale(repoRoot, () => undefined, ['services/api']);

  receiver = await startOtlpReceiver();
  await adminQuery(adminUrl, `CREATE DATABASE ${databaseName}`);
  await migrateDatabase({ driver: 'postgresql', url: databaseUrl });
  const [port, metricsPort] = [await freePort(), await freePort()];
  base = `http://127.0.0.1:${port}`;
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith('OTEL_')),
  );
  api = spawn('node', ['--enable-source-maps', 'dist/main.js'], {
    cwd: apiDir,
    env: {
      ...inherited,
      PORT: String(port),
      HOST: '127.0.0.1',
      METRICS_PORT: String(metricsPort),
      METRICS_HOST: '127.0.0.1',
      API_PUBLIC_URL: base,
      OIDC_ISSUER_URL: issuer,
      DATABASE_URL: databaseUrl,
      KEYCLOAK_EVENTS_POLL_SECONDS: '0',
      // Deployed, the API has no default for a secret; this one is never used here (no account route, no poll).
      KEYCLOAK_ADMIN_CLIENT_SECRET: 'tracing-spec-unused-secret',
      LOG_LEVEL: 'log',
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const child = api;
  exited = new Promise((resolve) => child.once('exit', () => resolve()));
  let pending = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    const text = pending + chunk.toString('utf8');
    const lines = text.split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines.filter(Boolean)) logLines.push(JSON.parse(line) as Record<string, unknown>);
  });
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the API exited with ${child.exitCode} while starting`);
    if (Date.now() > deadline) throw new Error(`the API was not ready within ${WAIT_MS} ms`);
    const ready = await fetch(`${base}/api/health/ready`).then(
      (response) => response.ok,
      () => false,
    );
    if (ready) break;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
});

afterAll(async () => {
  if (api && api.exitCode === null && api.signalCode === null) {
    api.kill('SIGKILL');
    await exited;
  }
  await receiver?.close();
  await adminQuery(adminUrl, `DROP DATABASE IF EXISTS ${databaseName} WITH (FORCE)`);
});

/** Whether `span` lies below `ancestor` in `spans` (its parent, its parent's parent, ...). */
function isDescendant(span: ReceivedSpan, ancestor: ReceivedSpan, spans: readonly ReceivedSpan[]): boolean {
  const byId = new Map(spans.map((each) => [each.spanId, each]));
  for (let parent = byId.get(span.parentSpanId); parent; parent = byId.get(parent.parentSpanId)) {
    if (parent.spanId === ancestor.spanId) return true;
  }
  return false;
}

describe('tracing with an OTLP endpoint, on PostgreSQL', () => {
  const traceId = randomBytes(16).toString('hex');
  const callerSpanId = randomBytes(8).toString('hex');
  let alice: BoundToken;
  let requestId: string;

  beforeAll(async () => {
    alice = await signIn(issuer, 'alice', 'alice');
    // As the shell calls: a DPoP-bound token, its proof, and the shell's span in `traceparent`.
    const url = `${base}/api/me`;
    const response = await fetch(url, {
      headers: {
        ...(await authorizationFor(alice, 'GET', url)),
        traceparent: `00-${traceId}-${callerSpanId}-01`,
      },
    });
    expect(response.status).toBe(200);
    requestId = response.headers.get('x-request-id') ?? '';
    expect(requestId).not.toBe('');
    // Shutting down sends what is still buffered: no waiting for the exporter's schedule.
    api!.kill('SIGTERM');
    await Promise.race([
      exited,
      new Promise((_, reject) => setTimeout(() => reject(new Error('the API did not stop')), WAIT_MS)),
    ]);
  });

  it("continues the caller's trace: the API's server span is the caller span's child, named by its route", () => {
    const spans = receiver.spans.filter((span) => span.traceId === traceId);
    const servers = spans.filter((span) => span.kind === SPAN_KIND.server);
    expect(servers).toHaveLength(1);
    const manifest = JSON.parse(readFileSync(join(apiDir, 'package.json'), 'utf8')) as { version: string };
    expect(servers[0]).toMatchObject({
      parentSpanId: callerSpanId,
      name: 'GET /api/me',
      scope: '@opentelemetry/instrumentation-http',
      attributes: {
        'http.request.method': 'GET',
        'http.route': '/api/me',
        'http.response.status_code': 200n,
        'atrium.request_id': requestId,
      },
      resource: { 'service.name': 'atrium-api', 'service.version': manifest.version },
    });
  });

  it('has the PostgreSQL queries of the request below its server span, without the values they ran with', () => {
    const spans = receiver.spans.filter((span) => span.traceId === traceId);
    const server = spans.find((span) => span.kind === SPAN_KIND.server)!;
    const queries = spans.filter(
      (span) => span.scope === '@opentelemetry/instrumentation-pg' && span.name.startsWith('pg.query'),
    );
    expect(queries.length).toBeGreaterThan(0);
    for (const query of queries) {
      expect(isDescendant(query, server, spans), query.name).toBe(true);
      expect(query.attributes).toMatchObject({
        'db.system.name': 'postgresql',
        'db.namespace': databaseName,
      });
    }
    // /api/me reads and writes alice's profile by her subject: the SQL text the spans carry names neither.
    const texts = queries.map((query) => String(query.attributes['db.query.text']));
    expect(texts.some((text) => text.includes('"user_profile"'))).toBe(true);
    const { sub } = decodeJwt(alice.accessToken);
    for (const text of texts) expect(text).not.toContain(sub);
  });

  it('traces only requests: no health probe, and no database work outside a request', () => {
    expect(receiver.exports).toBeGreaterThan(0);
    const probes = receiver.spans.filter((span) =>
      String(span.attributes['url.path']).startsWith('/api/health'),
    );
    expect(probes).toEqual([]);
    for (const span of receiver.spans) expect(span.parentSpanId, span.name).not.toBe('');
  });

  it("writes the trace id beside the request id on the request's log lines", () => {
    const lines = logLines.filter((line) => line['requestId'] === requestId);
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) expect(line['traceId']).toBe(traceId);
  });
});

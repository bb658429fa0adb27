// The audit log at a million rows, on PostgreSQL: a benchmark, not a test (run by `npm run bench`, which
// passes BENCH_AUDIT_POSTGRES_URL, an empty database of its own). See docs/adr/0006-api-benchmark.md.
//
// Fills audit_event with AUDIT_ROWS (1,000,000) entries, then asks the API (pinned to core 0) for the first
// page and for page 10,000 (the cursor of the entry before it, found once in SQL), one request at a time,
// alternating, ROUNDS times each after a warm-up; likewise for one actor's first and 100th page. Prints p50
// and p95 of each, and `audit_deep_page_ratio`: p50 of the deep page over p50 of the first (target ≤ 1.5).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import pg from 'pg';
import { startLocalIssuer } from '@atrium/test-support/local-issuer';
import type * as AuditSchemas from '../src/audit/audit.schemas.ts';

const { encodeCursor } = (await import(
  new URL('../dist/audit/audit.schemas.js', import.meta.url).href
)) as typeof AuditSchemas;

const databaseUrl = process.env['BENCH_AUDIT_POSTGRES_URL'];
if (!databaseUrl) throw new Error('BENCH_AUDIT_POSTGRES_URL is unset: run `npm run bench` at the root');
const ROWS = Number(process.env['AUDIT_ROWS'] ?? 1_000_000);
const PAGE_SIZE = 100;
const DEEP_PAGE = 10_000;
const ROUNDS = Number(process.env['AUDIT_ROUNDS'] ?? 300);
const ACTORS = 50;
const port = 39_175;
const here = import.meta.dirname;
const haveTaskset = spawnSync('taskset', ['--version']).status === 0;

const issuer = await startLocalIssuer();
const admin = await issuer.mint({
  expiresIn: '1h',
  claims: { azp: 'atrium-deployer', realm_access: { roles: ['atrium-admin'] } },
});
let server: ChildProcess | undefined;

function startServer(): Promise<void> {
  const command = [
    process.execPath,
    join(here, 'bench-server.ts'),
    'api',
    String(port),
    issuer.issuer,
    databaseUrl!,
  ];
  const [file, ...args] = haveTaskset ? ['taskset', '-c', '0', ...command] : command;
  server = spawn(file as string, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    server?.stdout?.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('listening')) resolve();
    });
    server?.on('exit', (code) => reject(new Error(`API exited with ${code}`)));
  });
}

const percentile = (values: number[], p: number) => {
  const ordered = [...values].sort((a, b) => a - b);
  return ordered[Math.min(ordered.length - 1, Math.floor((p / 100) * ordered.length))] as number;
};

async function timedGet(query: string): Promise<number> {
  const started = performance.now();
  const response = await fetch(`http://127.0.0.1:${port}/api/audit?pageSize=${PAGE_SIZE}${query}`, {
    headers: { authorization: `Bearer ${admin}` },
  });
  const body = (await response.json()) as { items?: unknown[] };
  const elapsed = performance.now() - started;
  if (response.status !== 200 || body.items?.length !== PAGE_SIZE) {
    throw new Error(
      `GET /api/audit${query} answered ${response.status}: ${JSON.stringify(body).slice(0, 300)}`,
    );
  }
  return elapsed;
}

try {
  // The server applies the migrations (tables and indexes) before it listens.
  await startServer();
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    const filling = performance.now();
    await db.query(
      `insert into audit_event (actor, action, target, details, occurred_at)
       select 'actor-' || (g % ${ACTORS}),
              (array['remote.created', 'remote.updated', 'remote.version.published', 'remote.version.activated'])[1 + g % 4],
              'remote-' || (g % 1000) || '@1.0.' || (g % 50),
              jsonb_build_object('n', g),
              timestamptz '2026-01-01' + (g / 3) * interval '1 second'
       from generate_series(1, $1::int) as g`,
      [ROWS],
    );
    await db.query('analyze audit_event');
    console.log(
      `audit_event filled with ${ROWS} rows in ${((performance.now() - filling) / 1000).toFixed(1)} s`,
    );
    const cursorAt = async (offset: number, where = '', params: unknown[] = []) => {
      const { rows } = await db.query<{ occurred_at: Date; id: number }>(
        `select occurred_at, id from audit_event ${where} order by occurred_at desc, id desc offset ${offset} limit 1`,
        params,
      );
      const row = rows[0];
      if (!row) throw new Error(`no entry at offset ${offset}`);
      return encodeURIComponent(encodeCursor({ occurredAt: row.occurred_at, id: row.id }));
    };
    const deepPage = Math.min(DEEP_PAGE, Math.floor(ROWS / PAGE_SIZE));
    const deep = await cursorAt((deepPage - 1) * PAGE_SIZE - 1);
    const actorPages = Math.floor(ROWS / ACTORS / PAGE_SIZE);
    const actorDeep = await cursorAt((actorPages - 1) * PAGE_SIZE - 1, 'where actor = $1', ['actor-7']);
    const cases = {
      first: '',
      deep: `&before=${deep}`,
      actor_first: '&actor=actor-7',
      actor_deep: `&actor=actor-7&before=${actorDeep}`,
    };
    const times = Object.fromEntries(Object.keys(cases).map((name) => [name, [] as number[]]));
    for (let round = 0; round < 30; round += 1)
      for (const query of Object.values(cases)) await timedGet(query);
    for (let round = 0; round < ROUNDS; round += 1) {
      const order = round % 2 === 0 ? Object.entries(cases) : Object.entries(cases).reverse();
      for (const [name, query] of order) times[name]?.push(await timedGet(query));
    }
    console.log(`${ROUNDS} requests per case, one at a time, ${PAGE_SIZE} entries per page`);
    console.log(
      `deep page: page ${deepPage} of the whole log; actor_deep: page ${actorPages} of one actor's`,
    );
    for (const [name, values] of Object.entries(times)) {
      console.log(`audit_${name}_p50_ms=${percentile(values, 50).toFixed(2)}`);
      console.log(`audit_${name}_p95_ms=${percentile(values, 95).toFixed(2)}`);
    }
    const ratio = (top: string, bottom: string) =>
      (percentile(times[top] ?? [], 50) / percentile(times[bottom] ?? [], 50)).toFixed(2);
    console.log(`audit_filtered_deep_page_ratio=${ratio('actor_deep', 'actor_first')}`);
    console.log(`audit_deep_page_ratio=${ratio('deep', 'first')} (target <= 1.5)`);
  } finally {
    await db.end();
  }
} finally {
  server?.kill('SIGTERM');
  await issuer.close();
}

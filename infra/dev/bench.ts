// `npm run bench`: the project's benchmarks, one after the other, each printing `name=value` figures.
// Not part of `npm test`: the figures depend on the machine and on whatever else runs on it.
// Obtains what the benchmarks need, as `npm test` does: a PostgreSQL server (the machine's on 127.0.0.1:5432,
// or one from the npm registry), in which the API bench gets a database of its own, dropped afterwards.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { createTemporaryDatabase } from '../testing/postgres.ts';
import { ensurePostgres } from './system-parts.ts';

const root = join(import.meta.dirname, '..', '..');

async function run(args: string[], env: NodeJS.ProcessEnv): Promise<void> {
  const child = spawn('npm', args, { cwd: root, stdio: 'inherit', env: { ...process.env, ...env } });
  const [code] = (await once(child, 'exit')) as [number | null];
  if (code !== 0) throw new Error(`npm ${args.join(' ')} exited with ${code}`);
}

const postgres = await ensurePostgres({ log: (line) => console.log(line) });
try {
  const database = await createTemporaryDatabase('atrium_bench', postgres.url);
  try {
    await run(['run', 'bench', '--workspace', 'services/api'], { BENCH_POSTGRES_URL: database.url });
  } finally {
    await database.drop();
  }
  const audit = await createTemporaryDatabase('atrium_bench_audit', postgres.url);
  try {
    await run(['run', 'bench:audit', '--workspace', 'services/api'], { BENCH_AUDIT_POSTGRES_URL: audit.url });
  } finally {
    await audit.drop();
  }
} finally {
  await postgres.stop();
}

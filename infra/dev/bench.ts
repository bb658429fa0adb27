// `npm run bench`: the project's benchmarks, one after the other, each printing `name=value` figures, then the
// figures issue 14 sets targets for, each beside its target. Not part of `npm test`: the figures depend on the
// machine and on whatever else runs on it.
//   api    services/api/bench/bench.ts: me_ratio_sqlite, me_ratio_postgres, remotes_ratio (about 5 min)
//   audit  services/api/bench/audit-bench.ts: audit_deep_page_ratio at AUDIT_ROWS (1,000,000) rows on
//          PostgreSQL (filling the table takes most of its time)
//   shell  infra/bench/shell-bench.ts: first_feature_ratio in Chromium, first_load_bytes, reload_bytes (about 4 min)
// `npm run bench -- --only api,shell` or `-- --skip audit` runs a part of them.
// Obtains what the benchmarks need, as `npm test` does: a PostgreSQL server (the machine's on 127.0.0.1:5432,
// or one from the npm registry), in which the API benchmarks get databases of their own, dropped afterwards;
// valgrind for the API benchmark's instruction counts; the shell benchmark obtains Keycloak, Chromium and nginx
// itself.
import { spawnSync } from 'node:child_process';
import { parseArgs } from 'node:util';
import { createTemporaryDatabase } from '../lib/postgres.ts';
import { capture } from '../lib/processes.ts';
import { ensureAptPart, ensurePostgres, systemContext } from './system-parts.ts';
import { repoRoot as root } from '../lib/paths.ts';

const PARTS = ['api', 'audit', 'shell'] as const;
type Part = (typeof PARTS)[number];

/** Issue 14's figures and their targets, in the order the summary lists them. */
const TARGETS: readonly { name: string; part: Part; target: string; met: (value: number) => boolean }[] = [
  { name: 'me_ratio_sqlite', part: 'api', target: '>= 0.4', met: (value) => value >= 0.4 },
  { name: 'me_ratio_postgres', part: 'api', target: '>= 0.4', met: (value) => value >= 0.4 },
  { name: 'remotes_ratio', part: 'api', target: '>= 0.4', met: (value) => value >= 0.4 },
  { name: 'audit_deep_page_ratio', part: 'audit', target: '<= 1.5', met: (value) => value <= 1.5 },
  { name: 'first_feature_ratio', part: 'shell', target: '<= 1.2', met: (value) => value <= 1.2 },
];
/** Figures reported beside the targets, without a number of their own to meet. */
const REPORTED = ['first_load_bytes', 'reload_bytes'];

const { values: flags } = parseArgs({
  options: { only: { type: 'string' }, skip: { type: 'string' } },
});
const listed = (value: string | undefined) => (value ?? '').split(',').filter(Boolean);
for (const name of [...listed(flags.only), ...listed(flags.skip)]) {
  if (!PARTS.includes(name as Part)) throw new Error(`Unknown benchmark "${name}": ${PARTS.join(', ')}`);
}
const parts = PARTS.filter(
  (part) =>
    (flags.only === undefined || listed(flags.only).includes(part)) && !listed(flags.skip).includes(part),
);

const figures = new Map<string, string>();

/** Runs an npm script, showing its output as it comes and keeping the `name=value` figures it prints. */
async function run(args: string[], env: NodeJS.ProcessEnv = {}): Promise<void> {
  const { code } = await capture('npm', args, {
    cwd: root,
    env,
    echo: true,
    onLine: (line) => {
      const figure = /^(\w+)=(-?[\d.]+)\b/.exec(line.trim());
      if (figure) figures.set(figure[1]!, figure[2]!);
    },
  });
  if (code !== 0) throw new Error(`npm ${args.join(' ')} exited with ${code}`);
}

if (parts.includes('api') || parts.includes('audit')) {
  const postgres = await ensurePostgres({ log: (line) => console.log(line) });
  try {
    if (parts.includes('api')) {
      ensureAptPart(systemContext(console.log), {
        part: 'valgrind',
        why: 'the API benchmark counts instructions per request with callgrind (framework_instructions_ratio)',
        packages: ['valgrind'],
        probe: () => spawnSync('valgrind', ['--version'], { encoding: 'utf8' }).stdout?.trim() || undefined,
        describe: (version) => version,
      });
      const database = await createTemporaryDatabase('atrium_bench', postgres.url);
      try {
        await run(['run', 'bench', '--workspace', 'services/api'], { BENCH_POSTGRES_URL: database.url });
      } finally {
        await database.drop();
      }
    }
    if (parts.includes('audit')) {
      const audit = await createTemporaryDatabase('atrium_bench_audit', postgres.url);
      try {
        await run(['run', 'bench:audit', '--workspace', 'services/api'], {
          BENCH_AUDIT_POSTGRES_URL: audit.url,
        });
      } finally {
        await audit.drop();
      }
    }
  } finally {
    await postgres.stop();
  }
}
if (parts.includes('shell')) await run(['run', 'bench:shell']);

console.log('\nissue 14 figures (each measured in one run, as ratios of two sides measured together):');
for (const { name, part, target, met } of TARGETS) {
  const value = figures.get(name);
  if (value === undefined) {
    console.log(
      `${name}: not measured (${parts.includes(part) ? 'not printed' : `--only/--skip left out ${part}`})`,
    );
  } else {
    console.log(`${name}=${value} (target ${target}: ${met(Number(value)) ? 'met' : 'NOT met'})`);
  }
}
for (const name of REPORTED) {
  const value = figures.get(name);
  console.log(value === undefined ? `${name}: not measured` : `${name}=${value}`);
}

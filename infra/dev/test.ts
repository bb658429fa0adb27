// `npm test`: every tier against the real parts, ending with one `N passed, N failed` line.
//   system parts (Java, Chromium, nginx, kubectl: installed when missing) → static checks (typecheck, lint)
//   → build → contract (generated files up to date, OpenAPI lint) → unit → integration (Keycloak + PostgreSQL) → browser (Chromium)
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join, relative } from 'node:path';
import { assertNodeVersion, ensureDependencies } from './toolchain.ts';
import { repoRoot as root } from '../lib/paths.ts';

assertNodeVersion();
const log = (line: string) => console.log(`\n[atrium test] ${line}`);
ensureDependencies(root, log);

const system = await import('./system-parts.ts');
const { buildStale } = await import('./build.ts');
const { ensureKeycloak } = await import('../keycloak/keycloak.ts');

// Every part first, so a machine that lacks one stops at once with the command that fixes it, rather than
// after minutes of tests (and no tier is ever skipped for want of it).
log('system parts…');
const context = system.systemContext((line) => console.log(`  ${line}`));
let chromiumPath: string;
try {
  system.ensureJava(context);
  chromiumPath = system.ensureChromium(context);
  system.ensureNginx(context);
  const kubectlDir = await system.ensureKubectl(context);
  // The static checks call `kubectl`: the packaged one goes first on PATH for every child process.
  if (kubectlDir) process.env.PATH = `${kubectlDir}${delimiter}${process.env.PATH ?? ''}`;
} catch (error) {
  console.error(`\n${error instanceof Error ? error.message : String(error)}`);
  console.log('0 passed, 1 failed');
  process.exit(1);
}

interface Outcome {
  passed: number;
  failed: number;
  /** The failed tests by name, printed again under the summary: a log's tail then says which test failed. */
  failures?: string[];
}
interface StageResult extends Outcome {
  stage: string;
  seconds: number;
}
const results: StageResult[] = [];
const reports = join(root, 'test-results');
mkdirSync(reports, { recursive: true });

async function timed(stage: string, body: () => Outcome | Promise<Outcome>): Promise<void> {
  const started = Date.now();
  log(`${stage}…`);
  let outcome: Outcome;
  try {
    outcome = await body();
  } catch (error) {
    console.error(error instanceof Error ? error.message : error);
    outcome = { passed: 0, failed: 1 };
  }
  results.push({ stage, ...outcome, seconds: (Date.now() - started) / 1000 });
}

function npm(args: string[], env: NodeJS.ProcessEnv = {}): number {
  return spawnSync('npm', args, { cwd: root, stdio: 'inherit', env: { ...process.env, ...env } }).status ?? 1;
}

/** A command that is one check: it passes or fails as a whole. */
function check(args: string[]): Outcome {
  return npm(args) === 0 ? { passed: 1, failed: 0 } : { passed: 0, failed: 1 };
}

/** Runs a vitest project and reads its counts from the JSON report (a crash before the report counts as a failure). */
function vitest(project: string, env: NodeJS.ProcessEnv = {}): Outcome {
  const file = join(reports, `${project}.json`);
  rmSync(file, { force: true });
  const status = npm(
    [
      'exec',
      '--',
      'vitest',
      'run',
      '--project',
      project,
      '--reporter=default',
      '--reporter=json',
      `--outputFile.json=${file}`,
    ],
    env,
  );
  if (!existsSync(file)) return { passed: 0, failed: 1 };
  const report = JSON.parse(readFileSync(file, 'utf8')) as {
    numPassedTests: number;
    numFailedTests: number;
    testResults: {
      name: string;
      message?: string;
      assertionResults: { fullName: string; status: string }[];
    }[];
  };
  const failed = report.numFailedTests + (status !== 0 && report.numFailedTests === 0 ? 1 : 0);
  const failures = report.testResults.flatMap(({ name, message, assertionResults }) => {
    const file = relative(root, name);
    const tests = assertionResults.filter((test) => test.status === 'failed');
    // A file that failed outside any test (an import, a hook) has no failed test to name.
    if (tests.length === 0 && message) return [`${file}: ${message.split('\n')[0]}`];
    return tests.map((test) => `${file} › ${test.fullName}`);
  });
  return { passed: report.numPassedTests, failed, failures };
}

function playwright(env: NodeJS.ProcessEnv): Outcome {
  const file = join(reports, 'e2e.json');
  rmSync(file, { force: true });
  const status = npm(['exec', '--', 'playwright', 'test'], env);
  if (!existsSync(file)) return { passed: 0, failed: 1 };
  const { config, stats, suites } = JSON.parse(readFileSync(file, 'utf8')) as {
    config: { rootDir: string };
    stats: { expected: number; unexpected: number; flaky: number };
    suites: PlaywrightSuite[];
  };
  const failed = stats.unexpected + stats.flaky + (status !== 0 && stats.unexpected === 0 ? 1 : 0);
  const failures = suites
    .flatMap(specsOf)
    .filter((spec) => !spec.ok)
    .map((spec) => `${relative(root, join(config.rootDir, spec.file))}:${spec.line} › ${spec.title}`);
  return { passed: stats.expected, failed, failures };
}

interface PlaywrightSuite {
  specs?: { title: string; file: string; line: number; ok: boolean }[];
  suites?: PlaywrightSuite[];
}

function specsOf(suite: PlaywrightSuite): NonNullable<PlaywrightSuite['specs']> {
  return [...(suite.specs ?? []), ...(suite.suites ?? []).flatMap(specsOf)];
}

const started = Date.now();
await timed('typecheck', () => check(['run', 'typecheck']));
await timed('lint', () => check(['run', 'lint']));
await timed('build', async () => {
  await buildStale(root, (line) => console.log(`  ${line}`));
  return { passed: 1, failed: 0 };
});
// The committed contract (sdk's generated OpenAPI document, wire types and rule module) matches the API,
// and Redocly finds no error in the document: fails with "run npm run contract" otherwise.
await timed('contract', () => check(['run', 'contract', '--', '--check']));
await timed('unit tests', () => vitest('unit'));

// One Keycloak with a freshly imported realm and one PostgreSQL serve the integration and browser tiers.
const keycloakDataDir = mkdtempSync(join(tmpdir(), 'atrium-test-keycloak-'));
let keycloak: Awaited<ReturnType<typeof ensureKeycloak>> | undefined;
let postgres: Awaited<ReturnType<typeof system.ensurePostgres>> | undefined;
try {
  postgres = await system.ensurePostgres({ log: (line) => console.log(`  ${line}`) });
  // Both tiers' setups see the server through the variable that overrides their own choice.
  const postgresEnv = { TEST_POSTGRES_URL: postgres.url };
  log('starting Keycloak…');
  keycloak = await ensureKeycloak({
    dataDir: keycloakDataDir,
    // Short-lived access tokens, so the browser tier watches silent renewal happen.
    env: { ATRIUM_ACCESS_TOKEN_LIFESPAN: process.env.ATRIUM_ACCESS_TOKEN_LIFESPAN ?? '60' },
    log: (line) => console.log(`  keycloak: ${line}`),
  });
  const issuer = keycloak.issuer;
  await timed('integration tests', () => vitest('integration', { OIDC_ISSUER_URL: issuer, ...postgresEnv }));
  await timed('browser tests', () => playwright({ CHROMIUM_PATH: chromiumPath, ...postgresEnv }));
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  results.push({ stage: postgres ? 'keycloak start' : 'postgresql start', passed: 0, failed: 1, seconds: 0 });
} finally {
  await keycloak?.stop();
  await postgres?.stop();
  rmSync(keycloakDataDir, { recursive: true, force: true });
}

const passed = results.reduce((sum, result) => sum + result.passed, 0);
const failed = results.reduce((sum, result) => sum + result.failed, 0);
console.log('\nStage                 passed  failed  seconds');
for (const result of results.filter((r) => r.passed + r.failed > 0)) {
  console.log(
    `${result.stage.padEnd(22)}${String(result.passed).padStart(6)}${String(result.failed).padStart(8)}${result.seconds.toFixed(1).padStart(9)}`,
  );
}
for (const { stage, failures = [] } of results) {
  for (const failure of failures) console.log(`failed (${stage}): ${failure}`);
}
console.log(`Total time ${((Date.now() - started) / 1000).toFixed(1)} s`);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);

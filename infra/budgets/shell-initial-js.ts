// `npm run budget`: the shell's initial JavaScript, from production builds into temporary folders, as
// name=value figures:
//   shell_initial_js_kb      gzip of the files the shell loads before its first remote (and its budget)
//   telemetry_initial_js_kb  what field telemetry adds to them: that figure minus the one of a build whose
//                            telemetry entry point (remote-loading/field-telemetry-entry.ts: the slot's marks and
//                            the import of the telemetry chunk) does nothing
//   telemetry_lazy_js_kb     the telemetry chunk itself (field telemetry and web-vitals), which the shell fetches
//                            once a remote has loaded or failed
// Exits 1 when the shell is over its budget. The browser journey (e2e/registry-roles.e2e.ts) checks the same
// budget on the files a browser really requests; this reads the build's chunk graph instead, so it needs no
// browser and can build the shell without a part.
import { rspack, type RspackOptions, type RspackPluginInstance, type Stats } from '@rspack/core';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import shellConfig from '@atrium/shell/rspack.config';
import { BUDGETS, gzipSize } from './bundle-sizes.ts';
import { initialChunks, TELEMETRY_CHUNK_REQUEST, telemetryChunks, type StatsChunk } from './shell-chunks.ts';

/** Telemetry's entry point as the remote slot imports it, and a stand-in with the same exports doing nothing. */
const TELEMETRY_ENTRY_REQUEST = /^\.\/field-telemetry-entry$/;
const NO_TELEMETRY =
  'data:text/javascript,export function markRemote(){}export async function startFieldTelemetryLater(){}';

/** Gzip bytes of the chunks' JavaScript files, as written into `dir`. */
function gzipOf(chunks: readonly StatsChunk[], dir: string): number {
  return chunks
    .flatMap((chunk) => chunk.files ?? [])
    .filter((file) => file.endsWith('.js'))
    .reduce((sum, file) => sum + gzipSize(join(dir, file)), 0);
}

interface Build {
  readonly chunks: StatsChunk[];
  readonly dir: string;
}

/** A production build of the shell into a temporary folder, with `plugins` added. */
async function buildShell(plugins: RspackPluginInstance[]): Promise<Build> {
  const dir = mkdtempSync(join(tmpdir(), 'atrium-shell-budget-'));
  const config = shellConfig({}, { mode: 'production' }) as RspackOptions;
  const compiler = rspack({
    ...config,
    output: { ...config.output, path: dir },
    plugins: [...(config.plugins ?? []), ...plugins],
  });
  const stats = await new Promise<Stats>((resolve, reject) =>
    compiler.run((error, result) =>
      error || !result ? reject(error ?? new Error('rspack reported no result')) : resolve(result),
    ),
  );
  await new Promise((resolve) => compiler.close(resolve));
  if (stats.hasErrors()) throw new Error(stats.toString({ all: false, errors: true }));
  const { chunks = [] } = stats.toJson({ all: false, chunks: true, chunkOrigins: true, ids: true });
  return { chunks, dir };
}

const kb = (bytes: number, digits = 1) => (bytes / 1024).toFixed(digits);

async function main(): Promise<void> {
  const builds: Build[] = [];
  try {
    const shell = await buildShell([]);
    builds.push(shell);
    const withoutTelemetry = await buildShell([
      new rspack.NormalModuleReplacementPlugin(TELEMETRY_ENTRY_REQUEST, NO_TELEMETRY),
    ]);
    builds.push(withoutTelemetry);
    const telemetry = telemetryChunks(shell.chunks);
    // Either would make the difference below meaningless: say so rather than print a wrong figure.
    if (telemetry.length === 0 || telemetryChunks(withoutTelemetry.chunks).length > 0) {
      throw new Error(
        `Field telemetry is no longer reached through ${TELEMETRY_CHUNK_REQUEST} in field-telemetry-entry.ts ` +
          '(imported by the remote slot as ./field-telemetry-entry): update infra/budgets/shell-initial-js.ts.',
      );
    }
    const initial = gzipOf(initialChunks(shell.chunks), shell.dir);
    const initialWithout = gzipOf(initialChunks(withoutTelemetry.chunks), withoutTelemetry.dir);
    console.log(`shell_initial_js_kb=${kb(initial)}`);
    console.log(`shell_initial_js_budget_kb=${kb(BUDGETS.shellInitialJs)}`);
    console.log(`telemetry_initial_js_kb=${kb(initial - initialWithout, 2)}`);
    console.log(`telemetry_lazy_js_kb=${kb(gzipOf(telemetry, shell.dir))}`);
    if (initial > BUDGETS.shellInitialJs) {
      console.error(`The shell's initial JavaScript (${kb(initial)} KB gzip) is over its budget.`);
      process.exitCode = 1;
    }
  } finally {
    for (const { dir } of builds) rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.main) await main();

// Instructions per request, counted by valgrind's callgrind: the same figure for the same build and input
// whatever else the machine runs, where time per request on these shared cores varies by a third between two
// windows (docs/bench/api.md). bench.ts uses it for `framework_instructions_ratio`: bare Fastify's instructions
// per `/api/health/live` over the API's. Instructions are not time (cache misses and the kernel's share are not
// in them), so the timed ratio stays the target and this one tells a real change from the machine's noise.
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import autocannon from 'autocannon';

/** Whether valgrind (with callgrind_control) is on the machine; without it the figure is not measured. */
export const haveCallgrind = (): boolean =>
  spawnSync('valgrind', ['--version']).status === 0 &&
  spawnSync('callgrind_control', ['--version']).status === 0;

export interface CountedServer {
  /** bench-server.ts's arguments after its path: mode, port, issuer, database URL. */
  readonly args: readonly string[];
  readonly env: NodeJS.ProcessEnv;
  /** The URL every counted request asks for. */
  readonly url: string;
  /** Where callgrind writes its dumps (one directory per server). */
  readonly outDir: string;
}

const WARM_UP_REQUESTS = 2_000;

/**
 * Starts bench-server.ts under callgrind, warms it up (so the JIT has settled), counts the instructions of
 * `requests` requests (4 connections) and stops it. Under valgrind a request costs some 50 times its CPU time.
 */
export async function instructionsPerRequest(server: CountedServer, requests: number): Promise<number> {
  const child = spawn(
    'valgrind',
    [
      '--tool=callgrind',
      // V8 writes machine code into memory it then runs: valgrind must watch all of it.
      '--smc-check=all-non-file',
      `--callgrind-out-file=${join(server.outDir, 'callgrind.out')}`,
      process.execPath,
      join(import.meta.dirname, 'bench-server.ts'),
      ...server.args,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'], env: server.env },
  );
  const exited = once(child, 'exit');
  try {
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => {
        if (chunk.toString().includes('listening')) resolve();
      });
      void exited.then(([code]) =>
        reject(new Error(`bench-server under callgrind exited with ${String(code)}`)),
      );
    });
    await load(server.url, WARM_UP_REQUESTS);
    control(child.pid as number, '--zero');
    await load(server.url, requests);
    control(child.pid as number, '--dump');
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
  // The dump taken after the counted requests: the newest numbered file (the final one is written at exit).
  const dumps = readdirSync(server.outDir).filter((name) => /^callgrind\.out\.\d+$/.test(name));
  const counted = dumps.sort((a, b) => Number(a.split('.').at(-1)) - Number(b.split('.').at(-1)))[0];
  if (!counted) throw new Error(`callgrind wrote no dump in ${server.outDir}`);
  const totals = /^(?:summary|totals): (\d+)/m.exec(readFileSync(join(server.outDir, counted), 'utf8'));
  if (!totals) throw new Error(`no instruction total in ${counted}`);
  return Number(totals[1]) / requests;
}

function control(pid: number, command: '--zero' | '--dump'): void {
  const result = spawnSync('callgrind_control', [command, String(pid)], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`callgrind_control ${command} failed: ${result.stderr}`);
}

async function load(url: string, amount: number): Promise<void> {
  const result = await autocannon({ url, connections: 4, amount });
  if (result.non2xx || result.errors || result.timeouts)
    throw new Error(`${url}: ${result.non2xx} non-2xx, ${result.errors} errors under callgrind`);
}

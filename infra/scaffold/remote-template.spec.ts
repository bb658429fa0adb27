import { spawnSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { repoRoot } from '@atrium/release-cli/publish-release';
import { scaffoldRemote } from './new-remote.ts';

// What `npm run new:remote` writes must pass what `npm test` asks of every remote: the template is checked as
// rendered, in a workspace laid out like this repository, with its settings and the real remotes' side by side.

let workspace: string | undefined;
afterEach(() => {
  if (workspace) rmSync(workspace, { recursive: true, force: true });
  workspace = undefined;
});

/**
 * A workspace shaped like the repository (root tsconfigs, vitest with its unit setup, eslint and prettier configs,
 * the sdk, remotes/) with a copy of the sdk, so the rendered remote is checked against the sdk it would get, and
 * nothing is written into the repository: not its remotes/, not its tsc cache under node_modules/.cache.
 * Packages are the repository's.
 */
function templateWorkspace(): string {
  const root = mkdtempSync(join(tmpdir(), 'atrium-remote-template-'));
  // The vitest config names its unit setup file, so the workspace has it where the config says.
  for (const file of [
    'tsconfig.base.json',
    'vitest.config.ts',
    'infra/testing/unit-setup.ts',
    'eslint.config.js',
    '.prettierrc.json',
  ]) {
    cpSync(join(repoRoot, file), join(root, file));
  }
  writeFileSync(join(root, 'package.json'), JSON.stringify({ private: true, type: 'module' }));
  // The root tsconfig's list: what tsc --build checks, and where scaffoldRemote adds the new remote.
  writeFileSync(
    join(root, 'tsconfig.json'),
    '{\n  "files": [],\n  "references": [\n    { "path": "./shell/sdk" }\n  ]\n}\n',
  );
  const sdk = join(repoRoot, 'shell/sdk');
  cpSync(sdk, join(root, 'shell/sdk'), {
    recursive: true,
    filter: (source) => !relative(sdk, source).split(sep).includes('node_modules'),
  });
  mkdirSync(join(root, 'remotes'));
  mkdirSync(join(root, 'node_modules/@atrium'), { recursive: true });
  for (const entry of readdirSync(join(repoRoot, 'node_modules'))) {
    // Our own packages are the workspace's (the sdk copy); tsc's cache is the workspace's own.
    if (entry === '@atrium' || entry === '.cache') continue;
    symlinkSync(join(repoRoot, 'node_modules', entry), join(root, 'node_modules', entry));
  }
  symlinkSync('../../shell/sdk', join(root, 'node_modules/@atrium/sdk'));
  return root;
}

/** Runs a tool of the repository's with this Node, in `cwd`, outside the running vitest. */
function tool(cwd: string, script: string, args: string[]): { status: number | null; output: string } {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('VITEST')));
  const result = spawnSync(process.execPath, [join(repoRoot, 'node_modules', script), ...args], {
    cwd,
    env: { ...env, NO_COLOR: '1' },
    encoding: 'utf8',
  });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

describe('the remote template (infra/templates/remote)', () => {
  it('renders a remote that type-checks with the root tsconfig, lints clean and passes its own spec', () => {
    workspace = templateWorkspace();
    const made = scaffoldRemote({ root: workspace, name: 'leave', title: 'Time off' });
    expect(made.files).toContain('remotes/leave/src/feature.spec.tsx');
    // new:remote formats what it wrote; then it is like any remote's code.
    const format = tool(workspace, 'prettier/bin/prettier.cjs', [
      '--write',
      '--log-level',
      'warn',
      'remotes/leave',
    ]);
    expect(format.status, format.output).toBe(0);

    // As `npm run typecheck` checks every project the root tsconfig lists, the new remote included.
    const typecheck = tool(workspace, 'typescript/bin/tsc', ['--build', '--pretty', 'false']);
    expect(typecheck.output).toBe('');
    expect(typecheck.status).toBe(0);

    // As `npm run lint` checks every remote, with the remotes' import boundary.
    const lint = tool(workspace, 'eslint/bin/eslint.js', ['remotes/leave', '--max-warnings=0']);
    expect(lint.output).toBe('');
    expect(lint.status).toBe(0);

    // As `npm test`'s unit tier, and the remote's own `npm test`, run it.
    const report = join(workspace, 'unit.json');
    const spec = tool(workspace, 'vitest/vitest.mjs', [
      'run',
      '--project',
      'unit',
      'remotes/leave',
      '--reporter=json',
      `--outputFile.json=${report}`,
    ]);
    expect(spec.status, spec.output).toBe(0);
    expect(JSON.parse(readFileSync(report, 'utf8'))).toMatchObject({ numPassedTests: 1, numFailedTests: 0 });
  }, 180_000);

  it("gives a new remote the real remotes' settings: tsconfig files, scripts, test tooling", () => {
    const remotesDir = join(repoRoot, 'remotes');
    const remotes = readdirSync(remotesDir).filter((folder) =>
      existsSync(join(remotesDir, folder, 'package.json')),
    );
    expect(remotes.length).toBeGreaterThan(0);
    const read = (root: string, name: string, file: string) =>
      JSON.parse(readFileSync(join(root, 'remotes', name, file), 'utf8')) as {
        scripts?: Record<string, string>;
        devDependencies?: Record<string, string>;
      };
    // The test and build tooling every remote has, at the versions the workspace installed.
    const shared = remotes
      .map((name) => Object.keys(read(repoRoot, name, 'package.json').devDependencies ?? {}))
      .reduce((common, names) => common.filter((dependency) => names.includes(dependency)));
    expect(shared).toContain('@testing-library/react');
    for (const name of remotes) {
      // Rendered under the remote's own name, in a repository without it.
      workspace = mkdtempSync(join(tmpdir(), 'atrium-remote-template-'));
      mkdirSync(join(workspace, 'remotes'));
      writeFileSync(
        join(workspace, 'tsconfig.json'),
        '{\n  "references": [\n    { "path": "./infra" }\n  ]\n}\n',
      );
      symlinkSync(join(repoRoot, 'node_modules'), join(workspace, 'node_modules'));
      scaffoldRemote({ root: workspace, name });
      for (const file of ['tsconfig.json', 'tsconfig.node.json']) {
        expect(read(workspace, name, file), `${file} of ${name}`).toEqual(read(repoRoot, name, file));
      }
      const rendered = read(workspace, name, 'package.json');
      const real = read(repoRoot, name, 'package.json');
      expect(rendered.scripts, `scripts of ${name}`).toEqual(real.scripts);
      for (const dependency of shared) {
        expect(rendered.devDependencies?.[dependency], `${dependency} of ${name}`).toBe(
          real.devDependencies?.[dependency],
        );
      }
      rmSync(workspace, { recursive: true, force: true });
    }
  });
});

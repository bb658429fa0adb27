import { REMOTE_NAME_RULE } from '@atrium/sdk/remote-rules';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { repoRoot } from '@atrium/release-cli/publish-release';
import { addTsReference, NewRemoteError, scaffoldRemote } from './new-remote.ts';
import { remoteNameProblem } from './remote-name.ts';

let root: string;
beforeEach(() => {
  // A copy of the repository's remotes' package.json files and root tsconfig, with its installed packages.
  root = mkdtempSync(join(tmpdir(), 'atrium-new-remote-'));
  for (const remote of ['profile', 'admin']) {
    mkdirSync(join(root, 'remotes', remote), { recursive: true });
    cpSync(join(repoRoot, 'remotes', remote, 'package.json'), join(root, 'remotes', remote, 'package.json'));
  }
  cpSync(join(repoRoot, 'tsconfig.json'), join(root, 'tsconfig.json'));
  symlinkSync(join(repoRoot, 'node_modules'), join(root, 'node_modules'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const read = (path: string) => readFileSync(join(root, path), 'utf8');
const installed = (name: string) =>
  (
    JSON.parse(readFileSync(join(repoRoot, 'node_modules', name, 'package.json'), 'utf8')) as {
      version: string;
    }
  ).version;

describe('scaffoldRemote', () => {
  it('writes a remote from the template with every token filled in and its own dev port', () => {
    const made = scaffoldRemote({ root, name: 'leave', title: 'Time off' });
    expect(made.files).toEqual([
      'remotes/leave/package.json',
      'remotes/leave/rspack.config.ts',
      'remotes/leave/src/env.d.ts',
      'remotes/leave/src/feature.spec.tsx',
      'remotes/leave/src/feature.tsx',
      'remotes/leave/tsconfig.json',
      'remotes/leave/tsconfig.node.json',
    ]);
    for (const file of made.files)
      expect(read(file)).not.toMatch(/__(REMOTE_|VERSION_OF|DEV_PORT|NAV_ORDER|COMPONENT_NAME)/);
    const pkg = JSON.parse(read('remotes/leave/package.json')) as {
      name: string;
      dependencies: Record<string, string>;
      devDependencies: Record<string, string>;
      atrium: Record<string, unknown>;
    };
    expect(pkg.name).toBe('@atrium/remote-leave');
    // After profile's 5001 and admin's 5002; clear of the stack's ports.
    expect(pkg.atrium).toEqual({
      remote: 'leave',
      title: 'Time off',
      route: '/leave',
      navOrder: made.navOrder,
      requiredRoles: [],
      devPort: 5003,
      owner: 'atrium-deployer',
    });
    expect(pkg.dependencies.react).toBe(installed('react'));
    expect(pkg.devDependencies['@rspack/plugin-react-refresh']).toBe(
      installed('@rspack/plugin-react-refresh'),
    );
    expect(read('remotes/leave/src/feature.tsx')).toContain('<h1 id="leave-title">Time off</h1>');
  });

  it('adds the remote to the root tsconfig references, once', () => {
    scaffoldRemote({ root, name: 'leave' });
    addTsReference(root, './remotes/leave');
    const { references } = JSON.parse(read('tsconfig.json')) as { references: { path: string }[] };
    expect(references.filter((reference) => reference.path === './remotes/leave')).toHaveLength(1);
    expect(references.map((reference) => reference.path)).toContain('./remotes/profile');
  });

  it('adds a reference to a list whose last entry has no comma', () => {
    writeFileSync(
      join(root, 'tsconfig.json'),
      '{\n  "files": [],\n  "references": [\n    { "path": "./infra" }\n  ]\n}\n',
    );
    addTsReference(root, './remotes/leave');
    expect(JSON.parse(read('tsconfig.json'))).toEqual({
      files: [],
      references: [{ path: './infra' }, { path: './remotes/leave' }],
    });
  });

  it("refuses a name that breaks the one remote-name rule, with the rule's words", () => {
    expect(() => scaffoldRemote({ root, name: 'Leave' })).toThrow(NewRemoteError);
    for (const name of ['Leave', 'time-off', 'x']) {
      expect(remoteNameProblem(name)).toBe(`"${name}" is not a remote name: it ${REMOTE_NAME_RULE}.`);
    }
    expect(remoteNameProblem('leave')).toBeUndefined();
  });

  it('refuses a name that is taken, by folder or by another folder’s remote name', () => {
    expect(() => scaffoldRemote({ root, name: 'profile' })).toThrow('remotes/profile exists already');
    mkdirSync(join(root, 'remotes', 'timeoff'));
    writeFileSync(
      join(root, 'remotes', 'timeoff', 'package.json'),
      JSON.stringify({ atrium: { remote: 'leave' } }),
    );
    expect(() => scaffoldRemote({ root, name: 'leave' })).toThrow(
      'remotes/timeoff is already the remote "leave"',
    );
  });
});

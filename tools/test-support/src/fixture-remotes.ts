// Releases as the browser journeys make them: the release CLI run as a feature team runs it, and hand-written
// fixture remotes published through the CLI's own code.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createRemotes,
  platformCredentialsFromEnv,
  publishRelease,
  releaseTargetFromEnv,
  type RemoteMetadata,
  type PublishResult,
} from '@atrium/release-cli/publish-release';
import { repoRoot } from '@atrium/infra-lib/paths';
import { capture } from '@atrium/infra-lib/processes';

/**
 * The release CLI as a feature team runs it (`npm run release`, or `npm run rollout` with `start <version>
 * --percent N`, `status`, ...), from the remote's folder (a workspace under remotes/, or any folder with such a
 * package.json); resolves with its output.
 */
export function runReleaseCli(
  command: 'release' | 'rollout',
  remote: string,
  args: string[],
  cwd = join(repoRoot, 'remotes', remote),
): Promise<{ code: number; output: string }> {
  return capture('node', [join(repoRoot, 'tools/release-cli/src', `${command}.ts`), ...args], { cwd });
}

/**
 * How a hand-written test remote behaves: renders a line of text, throws while rendering, or never
 * finishes loading its module.
 */
export type FixtureBehaviour = 'renders' | 'throws' | 'hangs';

/**
 * Writes a minimal Module Federation remote (manifest + global container, no bundler) that behaves as
 * asked. Test-only: it lives in a temporary folder and is published like any release.
 */
export function writeFixtureRemote(
  name: string,
  behaviour: FixtureBehaviour,
  text: string,
  /** Script the Feature runs each time it renders (an attack journey's remote doing what it should not). */
  onRender = '',
): string {
  const dir = mkdtempSync(join(tmpdir(), `atrium-fixture-${name}-`));
  mkdirSync(dir, { recursive: true });
  const manifest = {
    id: name,
    name,
    metaData: {
      name,
      type: 'app',
      buildInfo: { buildVersion: '1.0.0', buildName: name },
      remoteEntry: { name: 'remoteEntry.js', path: '', type: 'global' },
      types: { path: '', name: '', zip: '', api: '' },
      globalName: name,
      pluginVersion: '2.9.2',
      publicPath: 'auto',
    },
    shared: [],
    remotes: [],
    exposes: [
      {
        id: `${name}:Feature`,
        name: 'Feature',
        assets: { js: { sync: [], async: [] }, css: { sync: [], async: [] } },
        path: './Feature',
      },
    ],
  };
  const feature =
    behaviour === 'throws'
      ? `function Feature() { throw new Error(${JSON.stringify(text)}); }`
      : `function Feature() { ${onRender} return ${JSON.stringify(text)}; }`;
  const get =
    behaviour === 'hangs'
      ? 'function () { return new Promise(function () {}); }'
      : `function () { ${feature} return Promise.resolve(function () { return { Feature: Feature }; }); }`;
  writeFileSync(join(dir, 'mf-manifest.json'), JSON.stringify(manifest, null, 2));
  writeFileSync(
    join(dir, 'remoteEntry.js'),
    `var ${name} = { init: function () { return Promise.resolve(); }, get: ${get} };\n`,
  );
  return dir;
}

/**
 * Makes a fixture folder a remote's workspace for the release CLI: a package.json with its version and
 * `atrium` field (the CLI publishes `--dir` with it, as a team does from `remotes/<name>`).
 */
export function writeFixturePackage(dir: string, atrium: RemoteMetadata, version = '1.0.0'): void {
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify({ name: `@atrium/remote-${atrium.remote}`, version, private: true, atrium }, null, 2),
  );
}

/** The registry settings of a fixture remote: admins only unless a journey says otherwise. */
export function fixtureMetadata(
  name: string,
  route: string,
  requiredRoles = ['atrium-admin'],
): RemoteMetadata {
  return {
    remote: name,
    title: name[0]!.toUpperCase() + name.slice(1),
    route,
    navOrder: 50,
    requiredRoles,
    owner: 'atrium-deployer',
  };
}

/**
 * Has the platform's client create a fixture remote (an administrator's act), then publishes and activates
 * it as its owner, atrium-deployer, the way a feature team's pipeline does. Admins only by default, so other
 * journeys never see it.
 */
export async function publishFixture(
  name: string,
  dir: string,
  route: string,
  requiredRoles?: string[],
): Promise<PublishResult> {
  const remote = { dir, version: '1.0.0', atrium: fixtureMetadata(name, route, requiredRoles) };
  const target = releaseTargetFromEnv();
  await createRemotes([remote], target, platformCredentialsFromEnv(), () => undefined);
  return publishRelease({ remote, target, sourceDir: dir, activate: true, log: () => undefined });
}

/** The release store folder the stack and the CLI share. */
export function releaseStoreDir(): string {
  return releaseTargetFromEnv().storeDir;
}

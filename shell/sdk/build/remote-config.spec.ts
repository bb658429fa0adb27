import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { REMOTE_NAME_RULE } from '../src/generated/remote-rules.ts';
import { defineRemoteConfig, readRemotePackageInfo, remoteFederationOptions } from './remote-config.ts';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'atrium-remote-config-'));
});
afterEach(() => {
  vi.unstubAllEnvs();
  rmSync(dir, { recursive: true, force: true });
});

const writePackage = (pkg: object) => writeFileSync(join(dir, 'package.json'), JSON.stringify(pkg));
const leavePackage = {
  name: '@atrium/remote-time-off',
  version: '1.2.0',
  dependencies: { '@atrium/sdk': '0.1.0', react: '19.3.1', 'react-dom': '19.3.1' },
  atrium: { remote: 'leave', title: 'Time off', route: '/time-off', devPort: 5003 },
};
const exposes = { './Feature': './src/feature.tsx' } as const;

describe('defineRemoteConfig', () => {
  it('names the container after atrium.remote in package.json, and its chunk-loading global after the release', () => {
    writePackage(leavePackage);
    const config = defineRemoteConfig({ dir, exposes })({}, { mode: 'production' });
    expect(config.output?.uniqueName).toBe('atrium_leave_1_002e2_002e0');
    vi.stubEnv('ATRIUM_RELEASE_VERSION', '1.2.0-rc.1');
    // Another version, another name: two releases of a remote in one page never take each other's chunks.
    expect(defineRemoteConfig({ dir, exposes })({}, { mode: 'production' }).output?.uniqueName).toBe(
      'atrium_leave_1_002e2_002e0_002drc_002e1',
    );
    vi.unstubAllEnvs();
    expect(config.context).toBe(dir);
    expect(config.devServer).toMatchObject({
      port: 5003,
      hot: 'only',
      liveReload: false,
      client: { webSocketURL: 'ws://localhost:5003/ws' },
      headers: { 'Access-Control-Allow-Origin': '*' },
    });
  });

  it('builds production files with content hashes and integrity into dist/, development files without', () => {
    writePackage(leavePackage);
    const define = defineRemoteConfig({ dir, exposes });
    const production = define({}, { mode: 'production' });
    const development = define({}, { mode: 'development' });
    expect(production.output).toMatchObject({
      path: join(dir, 'dist'),
      publicPath: 'auto',
      filename: '[name].[contenthash:8].js',
      crossOriginLoading: 'anonymous',
    });
    expect(production.devtool).toBe(false);
    expect(development.mode).toBe('development');
    expect(development.output?.filename).toBe('[name].js');
    const pluginNames = (config: typeof production) =>
      config.plugins?.map((plugin) => plugin?.constructor.name);
    expect(pluginNames(development)).toContain('ReactRefreshRspackPlugin');
    expect(pluginNames(production)).not.toContain('ReactRefreshRspackPlugin');
  });

  it('writes into ATRIUM_BUILD_DIR when the release CLI sets it', () => {
    writePackage(leavePackage);
    vi.stubEnv('ATRIUM_BUILD_DIR', join(dir, 'release'));
    const config = defineRemoteConfig({ dir, exposes })({}, { mode: 'production' });
    expect(config.output?.path).toBe(join(dir, 'release'));
  });
});

describe('remoteFederationOptions', () => {
  it('shares react, react-dom and the sdk as provided-only singletons at the versions package.json lists', () => {
    writePackage({ ...leavePackage, dependencies: { ...leavePackage.dependencies, react: '19.4.0' } });
    const options = remoteFederationOptions(readRemotePackageInfo(dir), exposes);
    expect(options).toMatchObject({
      name: 'leave',
      filename: 'remoteEntry.js',
      exposes: { './Feature': './src/feature.tsx' },
      experiments: { externalRuntime: true },
    });
    expect(options.shared).toEqual({
      react: { singleton: true, import: false, requiredVersion: '^19.4.0' },
      'react-dom': { singleton: true, import: false, requiredVersion: '^19.3.1' },
      '@atrium/sdk': { singleton: true, import: false, requiredVersion: '^0.1.0' },
    });
  });
});

describe('readRemotePackageInfo', () => {
  it('names every problem of a package.json that cannot be built as a remote', () => {
    writePackage({ atrium: { remote: 'time-off', devPort: 4100 }, dependencies: { react: '19.3.1' } });
    const read = () => readRemotePackageInfo(dir);
    // The registry's sentence, word for word (remote-rules.ts).
    expect(read).toThrow(`"atrium.remote" ${REMOTE_NAME_RULE}`);
    expect(read).toThrow(/"atrium\.devPort" must be a port from 5001 up/);
    expect(read).toThrow(/"version" is missing/);
    expect(read).toThrow(/must list react-dom/);
    expect(read).toThrow(/must list @atrium\/sdk/);
  });
});

import { ModuleFederationPlugin } from '@module-federation/enhanced/rspack';
import { rspack, type RspackOptions } from '@rspack/core';
import { ReactRefreshRspackPlugin } from '@rspack/plugin-react-refresh';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { remoteNameProblem } from '../src/generated/remote-rules.ts';
import { REMOTE_ENTRY_FILE, remoteUniqueName } from '../src/remote-entry.ts';
import { ManifestFileHashesPlugin } from './manifest-file-hashes.ts';
import { PrecompressPlugin } from './precompress.ts';
import { ReleaseTypesPlugin } from './release-types.ts';

export { emitReleaseTypes, type ReleaseTypesOptions } from './release-types.ts';

/**
 * What a remote's `rspack.config.ts` says about itself; everything else is the same for every remote.
 */
export interface RemoteConfigOptions {
  /** The remote's folder, holding its package.json: pass `import.meta.dirname`. */
  readonly dir: string;
  /**
   * The remote's one exposed module, loaded by the shell as `<remote>/Feature` (`FEATURE_MODULE`), mapped to
   * its source file, e.g. `{ './Feature': './src/feature.tsx' }`.
   */
  readonly exposes: { readonly './Feature': string };
}

type ModuleFederationOptions = ConstructorParameters<typeof ModuleFederationPlugin>[0];

/** The rspack config function a remote's `rspack.config.ts` exports as default. */
export type RemoteConfigFunction = (env: Record<string, unknown>, argv: { mode?: string }) => RspackOptions;

/** What the build reads from a remote's package.json. */
export interface RemotePackageInfo {
  /** `atrium.remote`: the Module Federation container name and the registry name. */
  readonly remote: string;
  readonly version: string;
  /**
   * `atrium.devPort`: the port of the remote's dev server (`npm run dev`), its own so that several remotes and
   * the stack (4000, 4100, 3000, 8080, 9000, 1080, 1025) run side by side. Remotes take 5001 and up.
   */
  readonly devPort: number;
  /** The versions of the shared singletons the remote was built against. */
  readonly dependencies: Readonly<Record<SharedSingleton, string>>;
}

/** The libraries the shell provides to every remote as singletons. */
export const SHARED_SINGLETONS = ['react', 'react-dom', '@atrium/sdk'] as const;
type SharedSingleton = (typeof SHARED_SINGLETONS)[number];

/** The lowest dev-server port a remote may take; below it are the stack's own ports. */
export const FIRST_REMOTE_DEV_PORT = 5001;

/**
 * Reads and checks the remote's package.json, naming every problem at once so a new remote's mistakes
 * show up on its first build rather than in the browser.
 */
export function readRemotePackageInfo(dir: string): RemotePackageInfo {
  const file = join(dir, 'package.json');
  const pkg = JSON.parse(readFileSync(file, 'utf8')) as {
    version?: unknown;
    dependencies?: Record<string, unknown>;
    atrium?: { remote?: unknown; devPort?: unknown };
  };
  const problems: string[] = [];
  const remote = pkg.atrium?.remote;
  // The container name becomes a JavaScript global (and uniqueName a chunk-loading global): the one rule
  // the registry, the release CLI and the shell also apply (remote-rules.ts).
  const nameProblem = remoteNameProblem(remote);
  if (nameProblem) problems.push(`"atrium.remote" ${nameProblem}`);
  const devPort = pkg.atrium?.devPort;
  if (
    typeof devPort !== 'number' ||
    !Number.isInteger(devPort) ||
    devPort < FIRST_REMOTE_DEV_PORT ||
    devPort > 65535
  ) {
    problems.push(`"atrium.devPort" must be a port from ${FIRST_REMOTE_DEV_PORT} up, of this remote alone`);
  }
  if (typeof pkg.version !== 'string') problems.push(`"version" is missing`);
  const dependencies: Partial<Record<SharedSingleton, string>> = {};
  for (const name of SHARED_SINGLETONS) {
    const version = pkg.dependencies?.[name];
    if (typeof version === 'string') dependencies[name] = version;
    else
      problems.push(`"dependencies" must list ${name} (the shell provides it; the build needs its version)`);
  }
  if (problems.length > 0)
    throw new Error(`${file} cannot be built as an Atrium remote:\n- ${problems.join('\n- ')}`);
  return {
    remote: remote as string,
    version: pkg.version as string,
    devPort: devPort as number,
    dependencies: dependencies as Record<SharedSingleton, string>,
  };
}

/**
 * How the shell and every remote compile: TypeScript and JSX with swc for evergreen browsers (down-levelling
 * to ES5 would double the size of our own code), CSS as modules of the bundle, content-hashed file names in
 * production. One definition, so the host and its remotes never drift apart.
 */
export function bundleDefaults(
  production: boolean,
  { refresh = false, jsxImportSource = 'react' }: { refresh?: boolean; jsxImportSource?: string } = {},
) {
  const name = (extension: string) =>
    production ? `[name].[contenthash:8].${extension}` : `[name].${extension}`;
  return {
    filenames: {
      filename: name('js'),
      chunkFilename: name('js'),
      cssFilename: name('css'),
      cssChunkFilename: name('css'),
    },
    resolve: { extensions: ['.ts', '.tsx', '.js'] },
    /** Production builds ship `.br` and `.gz` copies of their text files for the servers to send as they are. */
    plugins: production ? [new PrecompressPlugin()] : [],
    module: {
      rules: [
        {
          test: /\.tsx?$/,
          exclude: /node_modules/,
          loader: 'builtin:swc-loader',
          options: {
            jsc: {
              target: 'es2022',
              parser: { syntax: 'typescript', tsx: true },
              transform: {
                react: {
                  runtime: 'automatic',
                  development: !production,
                  refresh,
                  importSource: jsxImportSource,
                },
              },
            },
          },
          type: 'javascript/auto',
        },
        { test: /\.css$/, type: 'css' },
      ],
    },
  } satisfies {
    filenames: RspackOptions['output'];
    resolve: RspackOptions['resolve'];
    plugins: RspackOptions['plugins'];
    module: RspackOptions['module'];
  };
}

/**
 * The Module Federation options of a remote: its container, its one exposed module and the shell's singletons.
 */
export function remoteFederationOptions(
  pkg: RemotePackageInfo,
  exposes: RemoteConfigOptions['exposes'],
): ModuleFederationOptions {
  return {
    name: pkg.remote,
    // remoteEntry.js keeps a stable name: the manifest points at it, the release store serves it under an
    // immutable versioned path, and the shell fetches it while it checks the manifest.
    filename: REMOTE_ENTRY_FILE,
    exposes: { ...exposes },
    // import: false — the shell always provides these; bundling a fallback copy would only add bytes
    // and risk a second React (hooks break) or a second sdk context (useAtrium() finds nothing).
    shared: Object.fromEntries(
      SHARED_SINGLETONS.map((name) => [
        name,
        { singleton: true, import: false, requiredVersion: `^${pkg.dependencies[name]}` },
      ]),
    ),
    dts: false,
    // Uses the federation runtime the shell provides (provideExternalRuntime) instead of its own copy.
    experiments: { externalRuntime: true, optimization: { target: 'web' } },
  };
}

/**
 * The rspack configuration of an Atrium remote: a Module Federation container exposing `./Feature`,
 * sharing react, react-dom and `@atrium/sdk` with the shell, using the shell's federation runtime and
 * writing its chunks' integrity hashes into `remoteEntry.js`, and those of its exposed module's files into
 * `mf-manifest.json` too; a production build also writes the declarations of what it exposes
 * (`atrium-types.json`, {@link ReleaseTypesPlugin}).
 *
 * The container name is `atrium.remote` from the remote's package.json, so it always matches the name the
 * registry lists; `uniqueName` is `atrium_<remote>_<version>` (`remoteUniqueName`). Environment:
 * `ATRIUM_BUILD_DIR` (output folder, default `dist/`) and `ATRIUM_RELEASE_VERSION` (`__RELEASE_VERSION__` and
 * `uniqueName`, default package.json's version), both set by the release CLI.
 *
 * @example
 * ```ts
 * // remotes/<name>/rspack.config.ts
 * import { defineRemoteConfig } from '@atrium/sdk/build';
 *
 * export default defineRemoteConfig({
 *   dir: import.meta.dirname,
 *   exposes: { './Feature': './src/feature.tsx' },
 * });
 * ```
 */
export function defineRemoteConfig(options: RemoteConfigOptions): RemoteConfigFunction {
  const pkg = readRemotePackageInfo(options.dir);
  // The release CLI sets ATRIUM_RELEASE_VERSION when it publishes a version other than package.json's.
  const releaseVersion = process.env.ATRIUM_RELEASE_VERSION ?? pkg.version;

  return (_env, argv) => {
    const production = argv.mode !== 'development';
    // `npm run dev`: React Fast Refresh (components re-render in place, their state kept) when the page's
    // React supports it; where it does not, ./hot-feature.cjs re-renders the Feature instead.
    const defaults = bundleDefaults(production, {
      refresh: !production,
      ...(production ? {} : { jsxImportSource: DEV_JSX_SOURCE }),
    });
    return {
      mode: production ? 'production' : 'development',
      target: ['web', 'es2022'],
      context: options.dir,
      // The container entry is all a remote needs; no page of its own.
      entry: {},
      devtool: production ? false : 'cheap-module-source-map',
      output: {
        // The release CLI builds each release into a folder of its own, leaving dist/ to development.
        path: process.env.ATRIUM_BUILD_DIR ?? join(options.dir, 'dist'),
        // Resolved from remoteEntry.js's own URL, so one build serves from any versioned path
        // (e.g. http://localhost:4100/profile/1.0.0/).
        publicPath: 'auto',
        // One per release: its chunk-loading global and its elements' marks are its own (remote-entry.ts).
        uniqueName: remoteUniqueName(pkg.remote, releaseVersion),
        ...defaults.filenames,
        clean: true,
        // The shell loads remoteEntry.js with the registry's integrity hash; the hashes of the chunks it
        // loads in turn are written into it (SubresourceIntegrityPlugin), and SRI on another origin needs CORS.
        crossOriginLoading: 'anonymous',
      },
      resolve: production ? defaults.resolve : { ...defaults.resolve, alias: devAliases(options) },
      module: defaults.module,
      plugins: [
        new rspack.SubresourceIntegrityPlugin({
          hashFuncNames: ['sha384'],
          enabled: production,
          htmlPlugin: false,
        }),
        new rspack.DefinePlugin({ __RELEASE_VERSION__: JSON.stringify(releaseVersion) }),
        new ModuleFederationPlugin(
          remoteFederationOptions(
            pkg,
            production ? options.exposes : { './Feature': join(import.meta.dirname, 'hot-feature.cjs') },
          ),
        ),
        // The Feature's files' hashes in the manifest, so the shell can load them alongside the entry; the
        // declarations of what the release exposes, for the release CLI and consumers (`npm run types`).
        ...(production
          ? [
              new ManifestFileHashesPlugin(),
              new ReleaseTypesPlugin({
                dir: options.dir,
                remote: pkg.remote,
                version: releaseVersion,
                exposes: options.exposes,
              }),
            ]
          : []),
        ...defaults.plugins,
        ...(production ? [] : [new ReactRefreshRspackPlugin()]),
      ],
      devServer: devServerOptions(pkg.devPort),
      performance: { hints: false },
    };
  };
}

/**
 * The remote's dev server: its own port, files readable from the shell's origin, hot updates over a web socket
 * on the dev server itself (the remote's code runs in the shell's page, so the client must not guess the page's
 * host), and never a full reload of the shell's page.
 */
export function devServerOptions(port: number): NonNullable<RspackOptions['devServer']> {
  return {
    port,
    host: 'localhost',
    headers: { 'Access-Control-Allow-Origin': '*' },
    // Hot updates only: when one cannot be applied, nothing changes, rather than the shell's page reloading.
    hot: 'only',
    liveReload: false,
    client: { webSocketURL: `ws://localhost:${port}/ws`, overlay: false },
  };
}

/**
 * What `npm run dev` resolves differently: the exposed `./Feature` is hot-feature.cjs, which renders the real one
 * (`atrium-remote-feature`) and renders it again after hot updates; JSX goes through dev-jsx-runtime.cjs, which
 * makes elements the `npm start` shell's production React can render.
 */
// Where a dev build's JSX comes from: dev-jsx-runtime.cjs, through the alias below.
const DEV_JSX_SOURCE = 'atrium-dev-jsx';

function devAliases(options: RemoteConfigOptions): Record<string, string> {
  const react = dirname(createRequire(import.meta.url).resolve('react/package.json'));
  return {
    'atrium-remote-feature$': join(options.dir, options.exposes['./Feature']),
    [`${DEV_JSX_SOURCE}/jsx-dev-runtime$`]: join(import.meta.dirname, 'dev-jsx-runtime.cjs'),
    'atrium-jsx-production$': join(react, 'cjs/react-jsx-runtime.production.js'),
  };
}

import { ModuleFederationPlugin } from '@module-federation/enhanced/rspack';
import { defineConfig } from '@rspack/cli';
import { rspack } from '@rspack/core';
import { readFileSync } from 'node:fs';

interface PackageJson {
  version: string;
  dependencies: Record<string, string>;
}
const pkg = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8')) as PackageJson;
const caret = (name: string) => `^${pkg.dependencies[name]}`;
// The release CLI sets ATRIUM_RELEASE_VERSION when it publishes a version other than package.json's.
const releaseVersion = process.env.ATRIUM_RELEASE_VERSION ?? pkg.version;

export default defineConfig((_env, argv) => {
  const production = argv.mode !== 'development';
  return {
    mode: production ? 'production' : 'development',
    target: ['web', 'es2022'],
    context: import.meta.dirname,
    // The container entry is all a remote needs; no page of its own.
    entry: {},
    devtool: production ? false : 'cheap-module-source-map',
    output: {
      // The release CLI builds each release into a folder of its own, leaving dist/ to development.
      path: process.env.ATRIUM_BUILD_DIR ?? new URL('./dist', import.meta.url).pathname,
      // Resolved from remoteEntry.js's own URL, so one build serves from any versioned path
      // (e.g. http://localhost:4100/admin/1.0.0/).
      publicPath: 'auto',
      uniqueName: 'atrium_admin',
      filename: production ? '[name].[contenthash:8].js' : '[name].js',
      chunkFilename: production ? '[name].[contenthash:8].js' : '[name].js',
      cssFilename: production ? '[name].[contenthash:8].css' : '[name].css',
      cssChunkFilename: production ? '[name].[contenthash:8].css' : '[name].css',
      clean: true,
      // The shell loads remoteEntry.js with the registry's integrity hash; the hashes of the chunks it loads
      // in turn are written into it (SubresourceIntegrityPlugin), and SRI on another origin needs CORS.
      crossOriginLoading: 'anonymous',
    },
    resolve: { extensions: ['.ts', '.tsx', '.js'] },
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
              transform: { react: { runtime: 'automatic', development: !production } },
            },
          },
          type: 'javascript/auto',
        },
        { test: /\.css$/, type: 'css' },
      ],
    },
    plugins: [
      new rspack.SubresourceIntegrityPlugin({
        hashFuncNames: ['sha384'],
        enabled: production,
        htmlPlugin: false,
      }),
      new rspack.DefinePlugin({ __RELEASE_VERSION__: JSON.stringify(releaseVersion) }),
      new ModuleFederationPlugin({
        name: 'admin',
        // remoteEntry.js keeps a stable name: the manifest points at it and the release store serves it
        // under an immutable versioned path.
        filename: 'remoteEntry.js',
        exposes: { './Feature': './src/feature.tsx' },
        // import: false — the shell always provides these; bundling a fallback copy would only add bytes
        // and risk a second React (hooks break) or a second sdk context (useAtrium() finds nothing).
        shared: {
          react: { singleton: true, import: false, requiredVersion: caret('react') },
          'react-dom': { singleton: true, import: false, requiredVersion: caret('react-dom') },
          '@atrium/sdk': { singleton: true, import: false, requiredVersion: caret('@atrium/sdk') },
        },
        dts: false,
        // Uses the federation runtime the shell provides (provideExternalRuntime) instead of its own copy.
        experiments: { externalRuntime: true, optimization: { target: 'web' } },
      }),
    ],
    devServer: {
      port: 4101,
      host: 'localhost',
      headers: { 'Access-Control-Allow-Origin': '*' },
    },
    performance: { hints: false },
  };
});

import { ModuleFederationPlugin } from '@module-federation/enhanced/rspack';
import { bundleDefaults } from '@atrium/sdk/build';
import { defineConfig } from '@rspack/cli';
import { rspack, type Compiler } from '@rspack/core';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { shellSecurityHeaders } from './deploy/security-headers.ts';

interface PackageJson {
  dependencies: Record<string, string>;
}
const pkg = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8')) as PackageJson;
const caret = (name: string) => `^${pkg.dependencies[name]}`;

/** The run-time document the dev server serves from public/: where the API and Keycloak are. */
const devRuntimeConfig = JSON.parse(
  readFileSync(new URL('./public/atrium.config.json', import.meta.url), 'utf8'),
) as { apiBaseUrl: string; oidc: { authority: string } };

/**
 * The dev server sends the same security headers as every other server of the shell, so a script source the
 * policy would refuse in production fails here first. Release origins as in the shell container's environment.
 */
export const devServerHeaders = shellSecurityHeaders({
  apiUrl: devRuntimeConfig.apiBaseUrl.replace(/\/+$/, ''),
  authority: devRuntimeConfig.oidc.authority.replace(/\/+$/, ''),
  remoteOrigins: (process.env.ATRIUM_REMOTE_ORIGINS ?? 'http://localhost:4100').split(/\s+/).filter(Boolean),
});

/**
 * The federation runtime from its ES module builds. Module Federation's plugins hand rspack the CommonJS
 * builds of its runtime packages (they resolve them with `require`), which rspack cannot tree-shake or
 * concatenate: about 5.5 KB of gzip of the shell's first file. The ES module builds of the same version sit
 * beside them (`dist/*.js` for `dist/*.cjs`); these aliases point every way in at them.
 */
function federationRuntimeModules(): Record<string, string> {
  const require = createRequire(import.meta.url);
  // As @rspack/core finds the bundler runtime (next to runtime-tools) and @module-federation/rspack the plugin
  // that hands the runtime to remotes (provideExternalRuntime).
  const runtimeTools = require.resolve('@module-federation/runtime-tools');
  const commonJs = [
    require.resolve('@module-federation/webpack-bundler-runtime', { paths: [runtimeTools] }),
    createRequire(require.resolve('@module-federation/enhanced/rspack')).resolve(
      '@module-federation/inject-external-runtime-core-plugin',
    ),
  ];
  const esm = (file: string) => file.replace(/\.cjs$/, '.js');
  return {
    ...Object.fromEntries(commonJs.map((file) => [`${file}$`, esm(file)])),
    // The alias @rspack/core sets for the runtime the shell's code imports, to the CommonJS build too.
    '@module-federation/runtime': esm(
      require.resolve('@module-federation/runtime', { paths: [runtimeTools] }),
    ),
  };
}

/**
 * Fails the build when a CommonJS module of the federation runtime is bundled after all (an alias above no
 * longer matches what a new version requests): it would be the untrimmed copy, or a second copy of the runtime.
 */
class FederationRuntimeEsmCheck {
  apply(compiler: Compiler) {
    compiler.hooks.afterCompile.tap('AtriumFederationRuntimeEsmCheck', (compilation) => {
      const commonJs = [...compilation.modules]
        .map((module) => module.nameForCondition() ?? '')
        .filter((resource) => /[\\/]@module-federation[\\/].*\.cjs$/.test(resource));
      if (commonJs.length > 0) {
        compilation.errors.push(
          new compiler.rspack.WebpackError(
            `The federation runtime must be bundled from its ES modules (see federationRuntimeModules in ` +
              `shell/app/rspack.config.ts); ${commonJs.length} CommonJS modules got in, e.g. ` +
              commonJs.slice(0, 3).join(', '),
          ),
        );
      }
    });
  }
}

export default defineConfig((_env, argv) => {
  const production = argv.mode !== 'development';
  const defaults = bundleDefaults(production);
  return {
    mode: production ? 'production' : 'development',
    target: ['web', 'es2022'],
    context: import.meta.dirname,
    entry: { main: './src/index.ts' },
    devtool: production ? false : 'cheap-module-source-map',
    output: {
      path: new URL('./dist', import.meta.url).pathname,
      // Absolute, so deep links served through the SPA fallback (/profile/x) still find their chunks.
      publicPath: '/',
      uniqueName: 'atrium_shell',
      ...defaults.filenames,
      clean: true,
    },
    resolve: {
      ...defaults.resolve,
      alias: {
        'use-sync-external-store/shim/index.js': new URL('./src/use-sync-external-store.ts', import.meta.url)
          .pathname,
        ...federationRuntimeModules(),
      },
    },
    module: defaults.module,
    plugins: [
      new rspack.HtmlRspackPlugin({ template: './public/index.html' }),
      new rspack.CopyRspackPlugin({
        patterns: [{ from: 'public', globOptions: { ignore: ['**/index.html'] } }],
      }),
      new ModuleFederationPlugin({
        name: 'shell',
        // Remotes are discovered at run time from the remotes list, never compiled in.
        remotes: {},
        shared: {
          react: { singleton: true, requiredVersion: caret('react') },
          'react-dom': { singleton: true, requiredVersion: caret('react-dom') },
          '@atrium/sdk': { singleton: true, requiredVersion: caret('@atrium/sdk') },
        },
        dts: false,
        // Remotes are built with experiments.externalRuntime and use this copy of the federation runtime.
        // No snapshot plugin: it reads remotes' mf-manifest.json and preloads from it, and the shell registers
        // each remote as its verified remoteEntry.js (release pinning refuses manifests and preloads anyway).
        experiments: {
          provideExternalRuntime: true,
          optimization: { target: 'web', disableSnapshot: true },
        },
      }),
      new FederationRuntimeEsmCheck(),
      ...defaults.plugins,
    ],
    devServer: {
      port: 4000,
      host: 'localhost',
      historyApiFallback: true,
      headers: devServerHeaders,
      // The error overlay writes HTML through a Trusted Types policy of its own, which the shell's CSP does not
      // name: errors show in the terminal and the console instead (as for the remotes' dev servers).
      client: { overlay: false },
    },
    optimization: {
      // rspack's own minimizers; three compress passes take about 0.2 KB off the initial JavaScript (gzip)
      // that one pass leaves. The unsafe_* options gained nothing more and are left off.
      minimizer: [
        new rspack.SwcJsMinimizerRspackPlugin({ minimizerOptions: { compress: { passes: 3 } } }),
        new rspack.LightningCssMinimizerRspackPlugin(),
      ],
      splitChunks: {
        cacheGroups: {
          // Every library the shell runs is needed at start (React, sign-in, routing), so they ship as one file:
          // split per shared singleton they cost a file's overhead each and the JSX runtime twice, about 1 KB of
          // the initial-JS budget.
          // The libraries only lazy chunks import (field telemetry's web-vitals, the typed API client's
          // openapi-fetch, the API calls' tracing's OpenTelemetry) stay with those chunks: merged into this one
          // they would load at start.
          defaultVendors: {
            test: /[\\/]node_modules[\\/](?!(web-vitals|openapi-fetch|openapi-typescript-helpers|@opentelemetry)[\\/])/,
            name: 'vendors',
            chunks: 'async',
            priority: -10,
            reuseExistingChunk: true,
          },
        },
      },
    },
    performance: { hints: false },
  };
});

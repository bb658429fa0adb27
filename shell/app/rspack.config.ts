import { ModuleFederationPlugin } from '@module-federation/enhanced/rspack';
import { bundleDefaults } from '@atrium/sdk/build';
import { defineConfig } from '@rspack/cli';
import { rspack } from '@rspack/core';
import { readFileSync } from 'node:fs';
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
        experiments: { provideExternalRuntime: true, optimization: { target: 'web' } },
      }),
      ...defaults.plugins,
    ],
    devServer: {
      port: 4000,
      host: 'localhost',
      historyApiFallback: true,
      headers: devServerHeaders,
    },
    optimization: {
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

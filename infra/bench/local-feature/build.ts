// The shell benchmark's harness: the shell's own production build (shell/app/rspack.config.ts, unchanged) with
// one remote's `./Feature` compiled in as a lazy chunk, the way a shell without Module Federation would split a
// route. Two of the shell's modules are swapped for the harness's own (./remotes-list.ts, ./remote-loader.ts): the
// list of features is known at build time and the slot imports the chunk; everything else, the slot and its
// performance marks included, is the shell's code.
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { rspack, type RspackOptions, type Stats } from '@rspack/core';
import shellConfig from '@atrium/shell/rspack.config';
import type { LocalRemote } from './local-remote.ts';
import { repoRoot } from '../../lib/paths.ts';

const shellSource = join(repoRoot, 'shell/app/src');

/** The shell modules the harness replaces, by the path they resolve to without the extension. */
const REPLACED: Readonly<Record<string, string>> = {
  [join(shellSource, 'remote-loading/catalogue/remotes-list')]: join(import.meta.dirname, 'remotes-list.ts'),
  [join(shellSource, 'remote-loading/loader/remote-loader')]: join(import.meta.dirname, 'remote-loader.ts'),
};

interface RemotePackage {
  readonly version: string;
  readonly atrium: { remote: string; title: string; route: string; navOrder: number };
}

/** The remote `remotes/<name>` as the registry would list it, with the source of its `./Feature`. */
export function localRemote(name: string): { remote: LocalRemote; featureSource: string } {
  const dir = join(repoRoot, 'remotes', name);
  const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as RemotePackage;
  // The source file the remote's rspack config exposes as ./Feature.
  const rspackConfig = readFileSync(join(dir, 'rspack.config.ts'), 'utf8');
  const exposed = /'\.\/Feature':\s*'([^']+)'/.exec(rspackConfig)?.[1];
  if (exposed === undefined) throw new Error(`${dir}/rspack.config.ts exposes no './Feature'`);
  return {
    remote: {
      name: pkg.atrium.remote,
      title: pkg.atrium.title,
      path: pkg.atrium.route,
      navOrder: pkg.atrium.navOrder,
      version: `${pkg.version}-local`,
      entry: '',
      integrity: '',
      manifestIntegrity: '',
    },
    featureSource: join(dir, exposed),
  };
}

/** Builds the harness shell for `remotes/<name>` into `outDir` (production mode, like the shell's own build). */
export async function buildLocalFeatureShell(name: string, outDir: string): Promise<void> {
  const { remote, featureSource } = localRemote(name);
  const base = shellConfig({}, { mode: 'production' }) as RspackOptions;
  const replace = new rspack.NormalModuleReplacementPlugin(/remotes-list|remote-loader/, (data) => {
    const target = REPLACED[resolve(data.context, data.request).replace(/\.tsx?$/, '')];
    if (target !== undefined && data.context.startsWith(shellSource)) data.request = target;
  });
  const config: RspackOptions = {
    ...base,
    output: { ...base.output, path: outDir },
    resolve: {
      ...base.resolve,
      alias: {
        ...(base.resolve?.alias as Record<string, string>),
        'atrium-bench-local-feature$': featureSource,
      },
    },
    plugins: [
      ...(base.plugins ?? []),
      replace,
      new rspack.DefinePlugin({
        __ATRIUM_BENCH_LOCAL_REMOTE__: JSON.stringify(remote),
        // What the remote's own build defines (shell/sdk/build/remote-config.ts).
        __RELEASE_VERSION__: JSON.stringify(remote.version),
      }),
    ],
  };
  const compiler = rspack(config);
  const stats = await new Promise<Stats>((done, fail) =>
    compiler.run((error, result) => (error ? fail(error) : done(result!))),
  );
  await new Promise<void>((done) => compiler.close(() => done()));
  const { errors = [], warnings = [] } = stats.toJson({ all: false, errors: true, warnings: true });
  // A shell module that the harness replaces and that gained an export the harness lacks would only warn.
  const problems = [...errors, ...warnings].map((problem) => problem.message);
  if (problems.length > 0) throw new Error(`The harness build failed:\n${problems.join('\n')}`);
}

import { readFileSync, realpathSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import type { Compilation, Compiler, RspackPluginInstance } from '@rspack/core';
import ts from 'typescript';
import {
  RELEASE_TYPES_FILE,
  RELEASE_TYPES_FORMAT,
  type ReleaseTypes,
  SDK_TYPES_DIR,
} from '../src/release-types.ts';

export interface ReleaseTypesOptions {
  /** The remote's folder: its package.json and tsconfig.json. */
  readonly dir: string;
  readonly remote: string;
  readonly version: string;
  /** Each exposed module and its source file, relative to `dir` (`{ './Feature': './src/feature.tsx' }`). */
  readonly exposes: Readonly<Record<string, string>>;
}

/**
 * The declarations of what a remote exposes, and of the `@atrium/sdk` they use, as the release stores them
 * (`@atrium/sdk/release-types`). The TypeScript compiler emits them from the remote's own tsconfig.json, with
 * the sdk read from its source, one file at a time from each exposed module along the imports its declarations
 * keep, so a release holds only what its types need (no types of its screens' insides). Type errors are
 * `npm run typecheck`'s; a declaration the compiler cannot write (a type it cannot name) is an error here, so a
 * release never goes out with types that quietly say `any`.
 *
 * @throws Error listing every declaration the compiler could not write.
 */
export function emitReleaseTypes(options: ReleaseTypesOptions): ReleaseTypes {
  const dir = realpathSync(options.dir);
  // This file is the sdk's: the remote is built against the sdk it is part of.
  const sdkDir = realpathSync(join(import.meta.dirname, '..'));
  const sdk = JSON.parse(readFileSync(join(sdkDir, 'package.json'), 'utf8')) as {
    version: string;
    exports: Record<string, string>;
  };

  const configFile = join(dir, 'tsconfig.json');
  const parsed = ts.getParsedCommandLineOfConfigFile(
    configFile,
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
        throw new Error(`${configFile}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`);
      },
    },
  );
  if (!parsed) throw new Error(`${configFile} cannot be read`);
  const entries = Object.entries(options.exposes).map(([name, file]) => ({ name, file: resolve(dir, file) }));
  const compilerOptions: ts.CompilerOptions = {
    ...parsed.options,
    // The sdk is read from its source (no project references, so no earlier `tsc --build` is needed); its
    // imports name their `.ts` files.
    allowImportingTsExtensions: true,
    noEmit: false,
    declaration: true,
    emitDeclarationOnly: true,
    declarationMap: false,
    sourceMap: false,
    composite: false,
    incremental: false,
    // Files are named by their own paths below; the compiler's output folder is never written to.
    rootDir: undefined,
    outDir: undefined,
    tsBuildInfoFile: undefined,
  };
  // The sdk's entry points first: the compiler writes declarations only for files it did not find through
  // node_modules, which is where the remote's imports find the sdk. Then the exposed modules and the remote's
  // own ambient declarations (globals such as __RELEASE_VERSION__).
  const rootNames = [
    ...Object.values(sdk.exports)
      .filter((target) => target.startsWith('./src/'))
      .map((target) => join(sdkDir, target)),
    ...entries.map((entry) => entry.file),
    ...parsed.fileNames.filter((file) => file.endsWith('.d.ts')),
  ];
  const program = ts.createProgram({ rootNames, options: compilerOptions });

  /** Where a source file's declarations go in the release's types, or undefined for what the consumer has. */
  const outputOf = (file: string): string | undefined => {
    const declarationName = (path: string) =>
      path.endsWith('.d.ts') ? path : path.replace(/\.(?:[cm]?tsx?|[cm]?jsx?)$/, '.d.ts');
    const inside = (root: string) => file.startsWith(root + sep) && relative(root, file).split(sep).join('/');
    const own = inside(dir);
    if (own && !own.startsWith('node_modules/')) return declarationName(own);
    const ofSdk = inside(sdkDir);
    if (ofSdk && !ofSdk.startsWith('node_modules/')) return `${SDK_TYPES_DIR}/${declarationName(ofSdk)}`;
    return undefined;
  };

  const files: Record<string, string> = {};
  const problems: string[] = [];
  const pending = entries.map((entry) => entry.file);
  const seen = new Set<string>();
  while (pending.length > 0) {
    const file = pending.pop() as string;
    if (seen.has(file)) continue;
    seen.add(file);
    const output = outputOf(file);
    if (output === undefined) continue;
    const source = program.getSourceFile(file);
    if (source === undefined) {
      problems.push(`${relative(dir, file)} is not a file the compiler can read`);
      continue;
    }
    let text: string | undefined;
    if (source.isDeclarationFile) {
      text = source.text;
    } else {
      const result = program.emit(source, (_name, written) => (text = written), undefined, true);
      problems.push(...result.diagnostics.map(describe));
    }
    if (text === undefined) {
      problems.push(`${relative(dir, file)}: the compiler wrote no declarations`);
      continue;
    }
    // A side-effect import (a style sheet) says nothing about types, and a consumer could not resolve it.
    text = text.replace(/^import ['"][^'"]*['"];\n/gm, '');
    files[output] = text;
    // Follow the imports the declarations keep (type-only ones included), resolved as the compiler does.
    const { importedFiles, referencedFiles } = ts.preProcessFile(text, true, true);
    for (const { fileName } of [...importedFiles, ...referencedFiles]) {
      const resolved = ts.resolveModuleName(fileName, file, compilerOptions, ts.sys).resolvedModule;
      if (resolved) pending.push(realpathSync(resolved.resolvedFileName));
    }
  }
  if (problems.length > 0) {
    throw new Error(
      `The type declarations of ${options.remote} cannot be written:\n- ${[...new Set(problems)].join('\n- ')}`,
    );
  }

  const exposes: Record<string, string> = {};
  for (const entry of entries) {
    const declarations = `${entry.name.replace(/^\.\//, '')}.d.ts`;
    const target = (outputOf(entry.file) as string).replace(/\.d\.ts$/, '');
    const reexport = `'./${target}'`;
    const hasDefault = /^export default |^export \{[^}]*\bdefault\b/m.test(files[`${target}.d.ts`] ?? '');
    files[declarations] =
      `export * from ${reexport};\n` + (hasDefault ? `export { default } from ${reexport};\n` : '');
    exposes[entry.name] = declarations;
  }
  // The sdk's package.json as the declarations need it: its entry points that they hold.
  const sdkExports: Record<string, string> = {};
  for (const [entry, target] of Object.entries(sdk.exports)) {
    const declarations = outputOf(join(sdkDir, target));
    if (declarations && declarations in files) {
      sdkExports[entry] = `./${declarations.slice(SDK_TYPES_DIR.length + 1)}`;
    }
  }
  files[`${SDK_TYPES_DIR}/package.json`] = `${JSON.stringify(
    {
      name: '@atrium/sdk',
      version: sdk.version,
      type: 'module',
      ...(sdkExports['.'] ? { types: sdkExports['.'] } : {}),
      exports: sdkExports,
    },
    null,
    2,
  )}\n`;
  return {
    format: RELEASE_TYPES_FORMAT,
    remote: options.remote,
    version: options.version,
    sdkVersion: sdk.version,
    exposes,
    files: Object.fromEntries(Object.entries(files).sort(([a], [b]) => a.localeCompare(b))),
  };
}

function describe(diagnostic: ts.Diagnostic): string {
  const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n');
  if (!diagnostic.file || diagnostic.start === undefined) return message;
  const { line, character } = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start);
  return `${diagnostic.file.fileName}:${line + 1}:${character + 1}: ${message}`;
}

/**
 * Writes {@link RELEASE_TYPES_FILE} into a remote's production build: the declarations of its exposed modules
 * ({@link emitReleaseTypes}). A declaration the compiler cannot write fails the build.
 */
export class ReleaseTypesPlugin implements RspackPluginInstance {
  readonly #options: ReleaseTypesOptions;

  constructor(options: ReleaseTypesOptions) {
    this.#options = options;
  }

  apply(compiler: Compiler): void {
    const { Compilation: Stages, sources, WebpackError } = compiler.rspack;
    compiler.hooks.thisCompilation.tap('AtriumReleaseTypes', (compilation: Compilation) => {
      compilation.hooks.processAssets.tap(
        { name: 'AtriumReleaseTypes', stage: Stages.PROCESS_ASSETS_STAGE_ADDITIONAL },
        () => {
          try {
            const types = emitReleaseTypes(this.#options);
            compilation.emitAsset(RELEASE_TYPES_FILE, new sources.RawSource(JSON.stringify(types)));
          } catch (error) {
            compilation.errors.push(new WebpackError((error as Error).message));
          }
        },
      );
    });
  }
}

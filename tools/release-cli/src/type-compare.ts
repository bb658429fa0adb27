import { dirname, join, relative } from 'node:path';
import ts from 'typescript';
import type { ReleaseTypes } from '@atrium/sdk/release-types';
import { ReleaseError } from './release-error.ts';

/**
 * The changes from `active`'s exposed types to `next`'s that break a consumer written against `active`, each in
 * a sentence naming the exposed module and the export (empty: `next` is compatible).
 *
 * The TypeScript compiler loads both releases' declarations (each with the sdk it was built against) into one
 * program and checks each export of `active` against `next`'s:
 * - an export, or an exposed module, that is gone breaks;
 * - a value export's new type must be assignable to its old one (what `active`'s consumers hold still holds:
 *   a narrowed result, a removed property, a changed signature break; a widened result does not);
 * - the props of a component (the first parameter of any function or class export) are what consumers pass,
 *   so a removed prop, a prop now required (or added as required) and a prop that accepts less (its type
 *   narrowed) break, while an added optional prop and a prop that accepts more are compatible;
 * - a type-only export must stay, as a type; its shape counts where the values that use it are compared.
 *
 * `resolveFrom` is a folder whose node_modules hold what the declarations import besides the sdk (React's
 * types): the repository's root. An import that resolves nowhere would make its types `any` and every change
 * look compatible, so it stops the comparison instead.
 *
 * @throws ReleaseError naming the imports that cannot be resolved.
 */
export function breakingChanges(active: ReleaseTypes, next: ReleaseTypes, resolveFrom: string): string[] {
  // Both releases are laid out in memory under the folder, where their imports of react find its types.
  const roots = {
    active: join(resolveFrom, '.atrium-types', 'active'),
    next: join(resolveFrom, '.atrium-types', 'next'),
  };
  const files = new Map<string, string>();
  const folders = new Set<string>();
  for (const [root, types] of [
    [roots.active, active],
    [roots.next, next],
  ] as const) {
    for (const [path, text] of Object.entries(types.files)) {
      const file = join(root, path);
      files.set(file, text);
      for (let folder = dirname(file); folder.startsWith(resolveFrom) && !folders.has(folder);) {
        folders.add(folder);
        folder = dirname(folder);
      }
    }
  }
  const options: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    target: ts.ScriptTarget.ES2023,
    lib: ['lib.es2023.d.ts', 'lib.dom.d.ts', 'lib.dom.iterable.d.ts'],
    module: ts.ModuleKind.Preserve,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    jsx: ts.JsxEmit.ReactJSX,
    allowImportingTsExtensions: true,
    types: [],
  };
  const disk = ts.createCompilerHost(options, true);
  const host: ts.CompilerHost = {
    ...disk,
    fileExists: (file) => files.has(file) || disk.fileExists(file),
    readFile: (file) => files.get(file) ?? disk.readFile(file),
    directoryExists: (folder) => folders.has(folder) || (disk.directoryExists?.(folder) ?? false),
    realpath: (path) => (files.has(path) || folders.has(path) ? path : (disk.realpath?.(path) ?? path)),
    getSourceFile: (file, language, ...rest) => {
      const text = files.get(file);
      return text === undefined
        ? disk.getSourceFile(file, language, ...rest)
        : ts.createSourceFile(file, text, language, true);
    },
  };
  const entry = (root: string, file: string) => join(root, file);
  const program = ts.createProgram({
    rootNames: [
      ...Object.values(active.exposes).map((file) => entry(roots.active, file)),
      ...Object.values(next.exposes).map((file) => entry(roots.next, file)),
    ],
    options,
    host,
  });
  const unresolved = [...files]
    .filter(([file]) => file.endsWith('.d.ts'))
    .flatMap(([file, text]) =>
      ts
        .preProcessFile(text, true, true)
        .importedFiles.filter(
          ({ fileName }) => !ts.resolveModuleName(fileName, file, options, host).resolvedModule,
        )
        .map(({ fileName }) => `${relative(resolveFrom, file)} imports ${fileName}`),
    );
  if (unresolved.length > 0) {
    throw new ReleaseError(
      `The types cannot be compared: what they import is not installed in ${resolveFrom} (npm ci there):\n- ` +
        unresolved.join('\n- '),
    );
  }
  const checker = program.getTypeChecker();
  const exportsOf = (file: string): Map<string, ts.Symbol> => {
    const source = program.getSourceFile(file);
    const module = source && checker.getSymbolAtLocation(source);
    if (!module) throw new Error(`${file} is not a module the compiler can read`);
    return new Map(checker.getExportsOfModule(module).map((symbol) => [symbol.name, resolved(symbol)]));
  };
  const resolved = (symbol: ts.Symbol) =>
    symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
  const show = (type: ts.Type) => checker.typeToString(type);

  const changes: string[] = [];
  for (const [expose, file] of Object.entries(active.exposes)) {
    const nextFile = next.exposes[expose];
    if (nextFile === undefined) {
      changes.push(`${expose} is no longer exposed`);
      continue;
    }
    const after = exportsOf(entry(roots.next, nextFile));
    for (const [name, before] of exportsOf(entry(roots.active, file))) {
      const label = `${expose}: ${name}`;
      const now = after.get(name);
      if (now === undefined) {
        changes.push(`${label} was removed`);
      } else if (!(before.flags & ts.SymbolFlags.Value)) {
        if (!(now.flags & ts.SymbolFlags.Type)) changes.push(`${label} is no longer a type`);
      } else if (!(now.flags & ts.SymbolFlags.Value)) {
        changes.push(`${label} is no longer a value`);
      } else {
        const [was, is] = [checker.getTypeOfSymbol(before), checker.getTypeOfSymbol(now)];
        const props = propChanges(checker, was, is);
        changes.push(...props.map((change) => `${label}: ${change}`));
        if (props.length === 0 && !checker.isTypeAssignableTo(is, was)) {
          changes.push(`${label} changed its type incompatibly: it was ${show(was)}, it is ${show(is)}`);
        }
      }
    }
  }
  return changes;
}

/** The props a function or class of `type` takes (its first parameter), or undefined when it is neither. */
function propsOf(checker: ts.TypeChecker, type: ts.Type): ts.Type | undefined | 'none' {
  for (const member of type.isUnion() ? type.types : [type]) {
    const signature = [...member.getCallSignatures(), ...member.getConstructSignatures()][0];
    if (signature === undefined) continue;
    const [props] = signature.getParameters();
    return props ? checker.getTypeOfSymbol(props) : 'none';
  }
  return undefined;
}

/** How a component's props changed in ways that break a consumer that passes them. */
function propChanges(checker: ts.TypeChecker, was: ts.Type, is: ts.Type): string[] {
  const [before, after] = [propsOf(checker, was), propsOf(checker, is)];
  if (before === undefined || after === undefined) return [];
  const propsIn = (props: ts.Type | 'none') =>
    props === 'none' ? new Map<string, ts.Symbol>() : new Map(props.getProperties().map((p) => [p.name, p]));
  const [old, now] = [propsIn(before), propsIn(after)];
  const optional = (prop: ts.Symbol) => (prop.flags & ts.SymbolFlags.Optional) !== 0;
  const changes: string[] = [];
  for (const [name, prop] of old) {
    const next = now.get(name);
    if (next === undefined) {
      changes.push(`prop ${name} was removed`);
      continue;
    }
    const nowRequired = optional(prop) && !optional(next);
    if (nowRequired) changes.push(`prop ${name} is now required`);
    // A prop now required no longer takes `undefined`: said above, so not again as accepting less.
    const declared = checker.getTypeOfSymbol(prop);
    const [type, nextType] = [
      nowRequired ? checker.getNonNullableType(declared) : declared,
      checker.getTypeOfSymbol(next),
    ];
    if (!checker.isTypeAssignableTo(type, nextType)) {
      changes.push(
        `prop ${name} accepts less: it took ${checker.typeToString(type)}, it takes ${checker.typeToString(nextType)}`,
      );
    }
  }
  for (const [name, prop] of now) {
    if (!old.has(name) && !optional(prop)) changes.push(`prop ${name} was added as required`);
  }
  return changes;
}

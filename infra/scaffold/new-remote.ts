import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { FIRST_REMOTE_DEV_PORT } from '@atrium/sdk/build';
import { remoteNameProblem } from './remote-name.ts';

/** The template every new remote is made from; its files end in `.tmpl` so no tool takes them for code. */
export const TEMPLATE_DIR = join(import.meta.dirname, '../templates/remote');
const TEMPLATE_SUFFIX = '.tmpl';

/** A name the tooling refuses (bad, or taken); the message says why. */
export class NewRemoteError extends Error {
  override readonly name = 'NewRemoteError';
}

export interface ScaffoldOptions {
  /** The repository: remotes/, tsconfig.json and node_modules/ are under it. */
  root: string;
  /** The remote's name: registry name, container name, folder and route. */
  name: string;
  /** Navigation label; the name with a capital letter unless given. */
  title?: string;
}

export interface ScaffoldResult {
  dir: string;
  title: string;
  devPort: number;
  navOrder: number;
  files: string[];
}

/**
 * Writes `remotes/<name>` from the template, with the tokens filled in: the name, the title, a dev-server port
 * and navigation place after the existing remotes', and each dependency at the version installed in the
 * workspace (so a new remote builds against exactly what the others do). Adds the remote to the root
 * tsconfig's references, so `tsc --build` checks it. Lint (eslint.config.js's `remotes/*` globs), the unit
 * tests (vitest's `remotes/**` include) and the size budgets (infra/budgets reads every remotes/* build) take
 * it up by its place alone.
 *
 * @throws NewRemoteError when the name breaks the rule or a remote of that name exists.
 */
export function scaffoldRemote(options: ScaffoldOptions): ScaffoldResult {
  const problem = remoteNameProblem(options.name);
  if (problem) throw new NewRemoteError(problem);
  const remotesDir = join(options.root, 'remotes');
  const dir = join(remotesDir, options.name);
  if (existsSync(dir)) {
    throw new NewRemoteError(`remotes/${options.name} exists already: choose another name.`);
  }
  const siblings = existingRemotes(remotesDir);
  const taken = siblings.find((remote) => remote.remote === options.name);
  if (taken) {
    throw new NewRemoteError(
      `remotes/${taken.folder} is already the remote "${options.name}": choose another name.`,
    );
  }
  const title = options.title ?? options.name[0]!.toUpperCase() + options.name.slice(1);
  const devPort = Math.max(FIRST_REMOTE_DEV_PORT - 1, ...siblings.map((remote) => remote.devPort ?? 0)) + 1;
  const navOrder = Math.max(0, ...siblings.map((remote) => remote.navOrder ?? 0)) + 10;
  const versionOf = installedVersions(options.root);
  const tokens: Record<string, string> = {
    __REMOTE_NAME__: options.name,
    __REMOTE_TITLE__: title,
    __COMPONENT_NAME__: title.replace(/[^A-Za-z0-9]/g, ''),
    __DEV_PORT__: String(devPort),
    __NAV_ORDER__: String(navOrder),
  };
  const files: string[] = [];
  for (const template of templateFiles(TEMPLATE_DIR)) {
    const target = join(dir, relative(TEMPLATE_DIR, template).slice(0, -TEMPLATE_SUFFIX.length));
    const text = readFileSync(template, 'utf8')
      .replace(/__VERSION_OF:([^_]+?)__/g, (_, name: string) => versionOf(name))
      .replace(/__[A-Z_]+__/g, (token) => tokens[token] ?? token);
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, text);
    files.push(relative(options.root, target));
  }
  addTsReference(options.root, `./remotes/${options.name}`);
  return { dir, title, devPort, navOrder, files: files.sort() };
}

/**
 * Adds a project to the root tsconfig.json's references (after the last remote's), keeping the file's layout.
 * A reference that is there already is left alone.
 */
export function addTsReference(root: string, path: string): void {
  const file = join(root, 'tsconfig.json');
  const text = readFileSync(file, 'utf8');
  const config = JSON.parse(text) as { references?: { path: string }[] };
  if (config.references?.some((reference) => reference.path === path)) return;
  const lines = text.split('\n');
  const referenceLines = lines.flatMap((line, index) => (/^\s*\{ "path": /.test(line) ? [index] : []));
  const remoteLines = referenceLines.filter((index) => lines[index]!.includes('"./remotes/'));
  const after = remoteLines.at(-1) ?? referenceLines.at(-1);
  if (after === undefined) {
    throw new NewRemoteError(`${file} has no "references" list to add ${path} to: add it by hand.`);
  }
  const indent = /^\s*/.exec(lines[after]!)![0];
  lines.splice(after + 1, 0, `${indent}{ "path": "${path}" },`);
  // The line copied may have been the last of the list, without a comma; JSON.parse checks the result.
  const updated = lines
    .join('\n')
    .replace(/\}(\s*\n\s*\{ "path": )/g, '},$1')
    .replace(/,(\s*\])/, '$1');
  JSON.parse(updated);
  writeFileSync(file, updated);
}

interface ExistingRemote {
  folder: string;
  remote?: string;
  devPort?: number;
  navOrder?: number;
}

function existingRemotes(remotesDir: string): ExistingRemote[] {
  return readdirSync(remotesDir)
    .filter((folder) => existsSync(join(remotesDir, folder, 'package.json')))
    .map((folder) => {
      const pkg = JSON.parse(readFileSync(join(remotesDir, folder, 'package.json'), 'utf8')) as {
        atrium?: { remote?: string; devPort?: number; navOrder?: number };
      };
      return { folder, ...pkg.atrium };
    });
}

/** The version of a package as installed in the workspace's node_modules. */
function installedVersions(root: string): (name: string) => string {
  const require = createRequire(join(root, 'package.json'));
  return (name) => {
    try {
      return (require(`${name}/package.json`) as { version: string }).version;
    } catch {
      // A package whose exports hide its package.json.
      const file = join(root, 'node_modules', name, 'package.json');
      if (!existsSync(file)) {
        throw new NewRemoteError(`${name} is not installed in ${root}: run \`npm install\` first.`);
      }
      return (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
    }
  };
}

function templateFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return templateFiles(path);
    return entry.name.endsWith(TEMPLATE_SUFFIX) ? [path] : [];
  });
}

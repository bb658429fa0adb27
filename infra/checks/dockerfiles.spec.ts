// Static checks of every Dockerfile (no Docker engine on these machines): it parses, its base images are pinned,
// it installs from the lockfile and runs the same workspace build scripts CI runs, and its image is non-root.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { DockerfileParser, type Instruction } from 'dockerfile-ast';
import { describe, expect, it } from 'vitest';
import { repoRoot as root } from '../lib/paths.ts';

function findDockerfiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (['node_modules', '.git', '.data', 'dist'].includes(entry.name)) return [];
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return findDockerfiles(path);
    return entry.name === 'Dockerfile' || entry.name.endsWith('.Dockerfile') ? [relative(root, path)] : [];
  });
}

function workspaceScripts(workspace: string): Record<string, string> {
  const file = join(root, workspace, 'package.json');
  if (!existsSync(file)) return {};
  return (JSON.parse(readFileSync(file, 'utf8')) as { scripts?: Record<string, string> }).scripts ?? {};
}

interface Stage {
  image: string;
  name: string | null;
  instructions: Instruction[];
}

function stagesOf(content: string): Stage[] {
  const dockerfile = DockerfileParser.parse(content);
  const args = new Map(
    dockerfile.getInitialARGs().flatMap((arg) => {
      const property = arg.getProperty();
      return property ? [[property.getName(), property.getValue() ?? ''] as const] : [];
    }),
  );
  const stages: Stage[] = [];
  for (const instruction of dockerfile.getInstructions()) {
    if (instruction.getKeyword() === 'FROM') {
      const [image = '', , name = null] = (instruction.getArgumentsContent() ?? '')
        .replace(/--platform=\S+\s+/, '')
        .split(/\s+/);
      stages.push({
        image: image.replace(/\$\{?(\w+)\}?/g, (_, arg: string) => args.get(arg) ?? `\${${arg}}`),
        name,
        instructions: [],
      });
    } else {
      stages.at(-1)?.instructions.push(instruction);
    }
  }
  return stages;
}

const runCommands = (stage: Stage) =>
  stage.instructions
    .filter((instruction) => instruction.getKeyword() === 'RUN')
    .map((instruction) => (instruction.getArgumentsContent() ?? '').replace(/\\\n/g, ' '));

/** `--workspace X` arguments of each `npm <command>` in a RUN line. */
function workspacesOf(command: string, npmCommand: 'ci' | 'run build'): string[][] {
  const pattern = new RegExp(`npm ${npmCommand}((?:\\s+--?[\\w-]+(?:[ =][^\\s-][^\\s&;|]*)?)*)`, 'g');
  return [...command.matchAll(pattern)].map((match) =>
    [...(match[1] ?? '').matchAll(/--workspace[ =](\S+)/g)].map((workspace) => workspace[1] ?? ''),
  );
}

const dockerfiles = findDockerfiles(root);

describe('Dockerfiles', () => {
  it('exist for every deployable: api, shell, release store and the remotes release step', () => {
    expect(dockerfiles.sort()).toEqual(
      expect.arrayContaining([
        'infra/release-store/Dockerfile',
        'remotes/release.Dockerfile',
        'services/api/Dockerfile',
        'shell/app/Dockerfile',
      ]),
    );
  });

  describe.each(dockerfiles)('%s', (file) => {
    const content = readFileSync(join(root, file), 'utf8');
    const stages = stagesOf(content);
    const stageNames = new Set(stages.map((stage) => stage.name).filter(Boolean));
    const builds = stages.some((stage) => runCommands(stage).some((command) => command.includes('npm ')));

    it('parses into known instructions, starting from a base image', () => {
      const dockerfile = DockerfileParser.parse(content);
      const known = new Set([
        'ARG',
        'FROM',
        'RUN',
        'COPY',
        'ENV',
        'WORKDIR',
        'USER',
        'EXPOSE',
        'HEALTHCHECK',
        'CMD',
      ]);
      for (const instruction of dockerfile.getInstructions()) {
        expect(known, `${file}:${instruction.getRange().start.line + 1}`).toContain(instruction.getKeyword());
      }
      expect(stages.length).toBeGreaterThan(0);
    });

    it('pins every base image to an explicit version (never latest)', () => {
      for (const stage of stages) {
        if (stageNames.has(stage.image)) continue;
        expect(stage.image, `${file}: FROM ${stage.image}`).toMatch(/^[\w./-]+:[\w.-]*\d[\w.-]*$/);
        expect(stage.image).not.toMatch(/:latest$/);
      }
    });

    it('runs its final image as an unprivileged user', () => {
      const final = stages.at(-1)!;
      const users = final.instructions.filter((instruction) => instruction.getKeyword() === 'USER');
      const user = users.at(-1)?.getArgumentsContent();
      const unprivilegedBase = final.image.startsWith('nginxinc/nginx-unprivileged:');
      expect(user !== undefined ? !/^(root|0)(:|$)/.test(user ?? '') : unprivilegedBase, file).toBe(true);
    });

    it('has a HEALTHCHECK when the image runs a server', () => {
      const final = stages.at(-1)!;
      const exposes = final.instructions.some((instruction) => instruction.getKeyword() === 'EXPOSE');
      const healthcheck = final.instructions.some(
        (instruction) => instruction.getKeyword() === 'HEALTHCHECK',
      );
      expect(healthcheck).toBe(exposes);
    });

    // An image that only packages files (the release store) has no build steps to check.
    const whenBuilding = (name: string, body: () => void) => {
      if (builds) it(name, body);
    };
    whenBuilding('builds in separate stages and installs only with npm ci from the lockfile', () => {
      expect(stages.length).toBeGreaterThan(1);
      const commands = stages.flatMap(runCommands);
      expect(commands.join('\n')).not.toMatch(/npm (install|i|add)\b/);
      const installs = commands.flatMap((command) => workspacesOf(command, 'ci'));
      expect(installs.length).toBeGreaterThan(0);
      for (const workspaces of installs) {
        for (const workspace of workspaces) {
          expect(
            existsSync(join(root, workspace, 'package.json')),
            `${file}: npm ci --workspace ${workspace}`,
          ).toBe(true);
        }
      }
      expect(content).toMatch(/package-lock\.json/);
    });

    whenBuilding('runs the build script each workspace defines (the one CI runs)', () => {
      const buildRuns = stages.flatMap(runCommands).flatMap((command) => workspacesOf(command, 'run build'));
      expect(buildRuns.length).toBeGreaterThan(0);
      const installed = new Set(
        stages.flatMap(runCommands).flatMap((command) => workspacesOf(command, 'ci').flat()),
      );
      for (const workspace of buildRuns.flat()) {
        expect(workspaceScripts(workspace).build, `${file}: ${workspace} has no build script`).toBeTruthy();
        expect(installed, `${file}: ${workspace} is built but its dependencies are not installed`).toContain(
          workspace,
        );
      }
    });
  });

  it('the remotes release step builds every remote under remotes/', () => {
    const content = readFileSync(join(root, 'remotes/release.Dockerfile'), 'utf8');
    const built = new Set(
      stagesOf(content)
        .flatMap(runCommands)
        .flatMap((c) => workspacesOf(c, 'run build').flat()),
    );
    const remotes = readdirSync(join(root, 'remotes'), { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && existsSync(join(root, 'remotes', entry.name, 'package.json')))
      .map((entry) => `remotes/${entry.name}`);
    expect([...built].sort()).toEqual(remotes.sort());
  });

  it('the remotes release step copies every file the sdk exports (the remotes build config included) before building', () => {
    const content = readFileSync(join(root, 'remotes/release.Dockerfile'), 'utf8');
    const stage = stagesOf(content).find((candidate) =>
      runCommands(candidate).some((command) => workspacesOf(command, 'run build').length > 0),
    )!;
    const buildAt = stage.instructions.findIndex(
      (instruction) =>
        instruction.getKeyword() === 'RUN' &&
        workspacesOf((instruction.getArgumentsContent() ?? '').replace(/\\\n/g, ' '), 'run build').length > 0,
    );
    // Sources copied from the build context (not from another stage) before the build runs.
    const sources = stage.instructions
      .slice(0, buildAt)
      .filter((instruction) => instruction.getKeyword() === 'COPY')
      .map((instruction) => instruction.getArguments().map((argument) => argument.getValue()))
      .filter((args) => !args.some((arg) => arg.startsWith('--from')))
      .flatMap((args) => args.filter((arg) => !arg.startsWith('--')).slice(0, -1));
    const sdk = JSON.parse(readFileSync(join(root, 'shell/sdk/package.json'), 'utf8')) as {
      exports: Record<string, string>;
    };
    const exported = Object.values(sdk.exports).map((file) => join('shell/sdk', file));
    expect(exported).toContain('shell/sdk/build/remote-config.ts');
    for (const file of exported) {
      const copied = sources.some(
        (source) => source === '.' || file === source || file.startsWith(`${source.replace(/\/$/, '')}/`),
      );
      expect(copied, `remotes/release.Dockerfile does not copy ${file} before the build`).toBe(true);
    }
  });

  it('.dockerignore keeps dependencies, builds, local data and secrets out of the build context', () => {
    const ignored = readFileSync(join(root, '.dockerignore'), 'utf8').split('\n');
    for (const pattern of ['**/node_modules', '**/dist', '.data', '.git', '.env']) {
      expect(ignored).toContain(pattern);
    }
  });
});

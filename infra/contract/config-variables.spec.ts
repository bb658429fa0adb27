import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { API_VARIABLE_GROUPS, type ConfigGroup } from '@atrium/api/config-variables';
import { describe, expect, it } from 'vitest';
import { SHELL_CONTAINER_VARIABLES } from '@atrium/shell/container-variables';
import { COMPOSE_VARIABLES } from '../compose/compose-variables.ts';
import { choosePostgres } from '../dev/system-parts.ts';
import { TEST_VARIABLES } from '../dev/test-variables.ts';
import { keycloakDistUrl } from '../keycloak/keycloak-distribution.ts';
import { KEYCLOAK_VARIABLE_GROUPS } from '../keycloak/keycloak-variables.ts';
import { platformCredentialsFromEnv, releaseTargetFromEnv } from '@atrium/release-cli/publish-release';
import { RELEASE_CLI_VARIABLES } from '@atrium/release-cli/release-variables';
import {
  CONFIG_GROUPS,
  configFiles,
  generateConfigFiles,
  renderDeployTables,
  renderEnvExample,
  replaceSection,
} from './config-variables.ts';
import { repoRoot as root } from '../lib/paths.ts';

const read = (file: string) => readFileSync(join(root, file), 'utf8');

/** Each variable line of an env file, commented out or not, as [name, value, active]. */
function envLines(text: string): [string, string, boolean][] {
  return [...text.matchAll(/^(# )?([A-Z][A-Z0-9_]*)=(.*)$/gm)].map((match) => [
    match[2]!,
    match[3]!,
    match[1] === undefined,
  ]);
}

/** One variable of the tables by name (the first, where two parts read it). */
function row(name: string) {
  const found = CONFIG_GROUPS.flatMap((group) => group.variables).find((variable) => variable.name === name);
  if (!found) throw new Error(`no row for ${name}`);
  return found;
}

const rowsOf = (groups: readonly ConfigGroup[]) => groups.flatMap((group) => group.variables);

describe('.env.example, generated from the tables', () => {
  const text = renderEnvExample(CONFIG_GROUPS);
  const lines = envLines(text);

  it('is what is committed, and so is the section of docs/deploy.md (npm run contract writes both)', async () => {
    const generated = await generateConfigFiles(root);
    expect(generated[configFiles.envExample]).toBe(read(configFiles.envExample));
    expect(generated[configFiles.deployDoc]).toBe(read(configFiles.deployDoc));
  });

  it('lists every variable the API reads exactly once', () => {
    const apiNames = rowsOf(API_VARIABLE_GROUPS).map((variable) => variable.name);
    expect(apiNames.length).toBeGreaterThan(40);
    for (const name of apiNames) {
      expect(
        lines.filter(([listed]) => listed === name),
        name,
      ).toHaveLength(1);
    }
  });

  it('holds only comments, blank lines and NAME=value lines, and sets no variable twice', () => {
    for (const line of text.split('\n')) expect(line, line).toMatch(/^(#.*|[A-Z][A-Z0-9_]*=.*|)$/);
    const active = lines.filter(([, , isActive]) => isActive).map(([name]) => name);
    expect(new Set(active).size).toBe(active.length);
    expect(new Set(lines.map(([name]) => name))).toEqual(
      new Set(rowsOf(CONFIG_GROUPS).map(({ name }) => name)),
    );
  });

  it('shows a default as the value, an example commented out where there is none, and a secret marked', () => {
    const group: ConfigGroup = {
      title: 'Example',
      readBy: 'nowhere',
      variables: [
        { name: 'WITH_DEFAULT', purpose: 'Has one.', default: '3' },
        { name: 'WITHOUT', purpose: 'Has none.', example: 'x' },
        { name: 'A_SECRET', purpose: 'Keep it.', secret: true, developmentValue: 'dev' },
      ],
    };
    const example = renderEnvExample([group]);
    expect(example).toContain(
      '\n# Has one.\nWITH_DEFAULT=3\n# Has none.\n# WITHOUT=x\n# Keep it (SECRET).\nA_SECRET=dev\n',
    );
    expect(renderEnvExample([group, { ...group, title: 'Again' }])).toContain('\n# WITH_DEFAULT=3\n');
    expect(renderDeployTables([group])).toContain(
      '| `A_SECRET` | none; in development `dev` |  | **Secret.** Keep it. |',
    );
  });
});

describe("docs/deploy.md's section of variables", () => {
  it('changes when a row changes: what --check compares', () => {
    const [first, ...rest] = API_VARIABLE_GROUPS;
    const changed = {
      ...first!,
      variables: first!.variables.map((variable) =>
        variable.name === 'PORT' ? { ...variable, default: '3001' } : variable,
      ),
    };
    expect(renderDeployTables([changed, ...rest])).not.toBe(renderDeployTables(API_VARIABLE_GROUPS));
    expect(renderEnvExample([changed, ...rest])).toContain('\nPORT=3001\n');
  });

  it('writes variable names as code and escapes what would become markup', () => {
    const markdown = renderDeployTables([
      {
        title: 'T',
        readBy: 'x',
        variables: [
          { name: 'A_B', purpose: 'Goes to <it>, like *ratio | A_B and `a|b` (docs/security.md#x).' },
        ],
      },
    ]);
    expect(markdown).toContain(
      '| Goes to \\<it\\>, like \\*ratio \\| `A_B` and `a|b` ([docs/security.md#x](security.md#x)). |',
    );
  });

  it('is refused without its markers, naming the fix', () => {
    expect(() => replaceSection('# Deploying\n', 'x', 'docs/deploy.md')).toThrow(/npm run contract/);
  });
});

describe('each table says what the code that reads it does', () => {
  it("Keycloak's: a row for every placeholder of the realm file, with the realm's default", () => {
    const placeholders = [
      ...read('infra/keycloak/realm-atrium.json').matchAll(/\$\{([A-Z0-9_]+):([^}]*)\}/g),
    ];
    expect(placeholders.length).toBeGreaterThan(5);
    const names = rowsOf(KEYCLOAK_VARIABLE_GROUPS).map(({ name }) => name);
    for (const [, name, fallback] of placeholders) {
      expect(names, name).toContain(name);
      const variable = row(name!);
      const shown = variable.default ?? variable.developmentValue;
      if (shown !== undefined) expect(shown, name).toBe(fallback);
    }
    expect(keycloakDistUrl().startsWith(row('ATRIUM_MAVEN_REPOSITORY').default!)).toBe(true);
  });

  it("the shell container's: exactly the Dockerfile's ENV, with its defaults", () => {
    const dockerfile = read('shell/app/Dockerfile');
    const block = /^ENV ((?:.*\\\n)*.*)$/m.exec(dockerfile)?.[1] ?? '';
    const env = Object.fromEntries(
      [...block.matchAll(/([A-Z][A-Z0-9_]*)=(\S*)/g)].map(([, name, value]) => [name!, value!]),
    );
    expect(Object.keys(env).sort()).toEqual(
      SHELL_CONTAINER_VARIABLES.variables.map(({ name }) => name).sort(),
    );
    for (const variable of SHELL_CONTAINER_VARIABLES.variables) {
      expect('default' in variable ? variable.default : '', variable.name).toBe(env[variable.name]);
    }
  });

  it("docker compose's: a row for everything it interpolates, compose's defaults, compose.dev.env's values", () => {
    const compose = read('docker-compose.yml');
    for (const [, name, fallback] of compose.matchAll(/\$\{([A-Z][A-Z0-9_]*)(?::-([^}]*))?/g)) {
      const variable = row(name!);
      if (fallback !== undefined && variable.default !== undefined)
        expect(variable.default, name).toBe(fallback);
    }
    const devEnv = Object.fromEntries(
      envLines(read('compose.dev.env'))
        .filter(([, , active]) => active)
        .map(([name, value]) => [name, value]),
    );
    for (const variable of rowsOf([COMPOSE_VARIABLES, ...KEYCLOAK_VARIABLE_GROUPS]).filter((v) => v.secret)) {
      if (variable.name in devEnv)
        expect(variable.developmentValue, variable.name).toBe(devEnv[variable.name]);
    }
    expect(Object.keys(devEnv).filter((name) => row(name).secret)).toHaveLength(7);
  });

  it("the release CLI's: its defaults, and the realm's development secrets for its clients", () => {
    const defaults = Object.fromEntries(
      RELEASE_CLI_VARIABLES.variables.map(({ name, default: d }) => [name, d]),
    );
    expect(releaseTargetFromEnv({})).toEqual({
      storeDir: join(root, defaults.ATRIUM_RELEASE_STORE_DIR!),
      storeUrl: defaults.ATRIUM_RELEASE_STORE_URL,
      apiUrl: defaults.ATRIUM_API_URL,
      issuer: defaults.ATRIUM_ISSUER_URL,
      clientId: defaults.ATRIUM_DEPLOYER_CLIENT_ID,
      clientSecret: row('ATRIUM_DEPLOYER_SECRET').developmentValue,
    });
    expect(platformCredentialsFromEnv({})).toEqual({
      clientId: defaults.ATRIUM_PLATFORM_CLIENT_ID,
      clientSecret: row('ATRIUM_PLATFORM_SECRET').developmentValue,
    });
  });

  it("the tests': the default PostgreSQL choice", () => {
    const mode = TEST_VARIABLES.variables.find(({ name }) => name === 'ATRIUM_TEST_POSTGRES')!.default!;
    expect(choosePostgres({ ATRIUM_TEST_POSTGRES: mode })).toEqual(choosePostgres({}));
  });
});

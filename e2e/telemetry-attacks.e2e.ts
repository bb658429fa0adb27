import { expect, test } from '@playwright/test';
import pg from 'pg';
import { createPerson } from './support/keycloak-admin.ts';
import { signInAtKeycloak } from './support/keycloak.ts';
import { publishFixture, writeFixtureRemote } from './support/releases.ts';

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
  const person = await createPerson('mimicked');
  await page.goto('/mimic');
  await signInAtKeycloak(page, person.username, person.password);
  await expect(page.getByRole('main').getByText('Mimic works')).toBeVisible();
  expect(await page.evaluate(() => performance.getEntriesByName('atrium:remote-failed:prey').length)).toBe(
    20,
  );

  // Leaving the page sends what the shell saw (its telemetry batch goes as the page hides).
  await page.goto('/');
  await expect(page.getByTestId('signed-in-user')).toBeVisible();
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
});

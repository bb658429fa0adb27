import type { Page } from '@playwright/test';
import { expect, test } from '@atrium/test-support/journey-test';
import { platformCredentialsFromEnv, releaseTargetFromEnv } from '@atrium/release-cli/publish-release';
import { activateVersion, callApi, getDeployerToken } from '@atrium/release-cli/registry-client';
import { repoRoot } from '@atrium/infra-lib/paths';
import { capture } from '@atrium/infra-lib/processes';
import {
  fixtureMetadata,
  publishFixture,
  runReleaseCli,
  writeFixturePackage,
  writeFixtureRemote,
} from '@atrium/test-support/fixture-remotes';
import { openAs } from '@atrium/test-support/journeys';
import { expectAccessible } from '@atrium/test-support/accessibility';

// The release watch starts 10 s after the list is adopted and asks every 10 s from then
// (shell/app/src/remote-loading/catalogue/release-watch.tsx): a page hears of a change within 20 s of opening, or
// 10 s later, plus the time the registry takes to answer.
const HEARS_WITHIN_MS = 30_000;

/**
 * Publishes `version` of a fixture remote beside its active one, as its owning deployer with the release CLI;
 * resolves with the release's folder (the remote's workspace, where the team runs the CLI).
 */
async function publishBeside(
  remote: string,
  version: string,
  text: string,
  activate = false,
): Promise<string> {
  const dir = writeFixtureRemote(remote, 'renders', text);
  writeFixturePackage(dir, fixtureMetadata(remote, `/${remote}`, []), version);
  const published = await runReleaseCli(
    'release',
    remote,
    ['--dir', dir, ...(activate ? ['--activate'] : [])],
    dir,
  );
  expect(published.code, published.output).toBe(0);
  return dir;
}

/** Every URL the page asks for under a release's folder in the store. */
function requestsFor(page: Page, remote: string, version: string): string[] {
  const seen: string[] = [];
  page.on('request', (request) => {
    if (new URL(request.url()).pathname.startsWith(`/${remote}/${version}/`)) seen.push(request.url());
  });
  return seen;
}

test('an open page drops a release an administrator withdrew, says why and reloads to the active one; prune keeps it for open pages', async ({
  page,
}) => {
  test.setTimeout(180_000);
  const remote = 'pulled';
  await publishFixture(remote, writeFixtureRemote(remote, 'renders', 'Pulled 1.0.0 works'), `/${remote}`, []);
  await publishBeside(remote, '1.1.0', 'Pulled 1.1.0 works', true);
  await openAs(page, `/${remote}`, 'alice');
  await expect(page.getByText('Pulled 1.1.0 works')).toBeVisible();
  await expectAccessible(page, 'fixture-remote');

  // The team rolls back; the open page keeps what it runs and offers a reload.
  const target = releaseTargetFromEnv();
  await activateVersion({ ...target, token: await getDeployerToken(target), remote, version: '1.0.0' });
  await expect(
    page.getByRole('status').filter({ hasText: 'A new version of Pulled is available.' }),
  ).toBeVisible({
    timeout: HEARS_WITHIN_MS,
  });
  await expect(page.getByText('Pulled 1.1.0 works')).toBeVisible();
  await expectAccessible(page, 'new-version-notice');

  // An administrator withdraws 1.1.0: the open page stops running it, says why, and offers the active version.
  const admin = await getDeployerToken({ ...target, ...platformCredentialsFromEnv() });
  await callApi(target.apiUrl, `/api/remotes/${remote}/versions/1.1.0/withdrawal`, admin, {
    reason: 'It shows other people’s data',
  });
  const alert = page.getByRole('alert').filter({ hasText: 'Pulled is unavailable' });
  await expect(alert).toContainText(
    'Pulled 1.1.0 was withdrawn: It shows other people’s data. Reload the page to use version 1.0.0.',
    { timeout: HEARS_WITHIN_MS },
  );
  await expect(page.getByText('Pulled 1.1.0 works')).toBeHidden();
  await expectAccessible(page, 'remote-withdrawn');
  await alert.getByRole('button', { name: 'Reload' }).click();
  await expect(page.getByText('Pulled 1.0.0 works')).toBeVisible();

  // The store keeps the withdrawn release while open pages may still show why, and never the active one.
  const prune = (retentionHours: string) =>
    capture('node', ['tools/release-cli/src/release.ts', 'prune', '--dry-run'], {
      cwd: repoRoot,
      env: { ATRIUM_RELEASE_RETENTION_HOURS: retentionHours },
    });
  const week = await prune('168');
  expect(week.code, week.output).toBe(0);
  expect(week.output).toContain(`kept ${remote} 1.1.0: withdrawn within the retention time`);
  expect(week.output).toContain(`kept ${remote} 1.0.0: active`);
  const none = await prune('0');
  expect(none.output).toContain(
    `would remove ${remote} 1.1.0: withdrawn, longer ago than the retention time`,
  );
  expect(none.output).toContain(`kept ${remote} 1.0.0: active`);
});

test('a page that was served a canary never loads it once the canary is rolled back, and says why', async ({
  page,
}) => {
  test.setTimeout(180_000);
  const remote = 'rolledback';
  const title = 'Rolledback';
  await publishFixture(
    remote,
    writeFixtureRemote(remote, 'renders', `${title} 1.0.0 works`),
    `/${remote}`,
    [],
  );
  const workspace = await publishBeside(remote, '1.1.0', `${title} 1.1.0 works`);
  const started = await runReleaseCli('rollout', remote, ['start', '1.1.0', '--percent', '100'], workspace);
  expect(started.code, started.output).toBe(0);

  // Alice's page is served the canary in its list, and she has not opened the feature yet.
  const canaryFiles = requestsFor(page, remote, '1.1.0');
  await openAs(page, '/', 'alice');
  const navLink = page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: title });
  await expect(navLink).toBeVisible();
  await expect(page.getByRole('region', { name: 'Your features' })).toBeVisible();
  await expectAccessible(page, 'home');

  const aborted = await runReleaseCli(
    'rollout',
    remote,
    ['abort', '--reason', 'Too many failed loads'],
    workspace,
  );
  expect(aborted.code, aborted.output).toBe(0);
  // The page hears of it (the active set it started with has changed) ...
  await expect(
    page.getByRole('status').filter({ hasText: `A new version of ${title} is available.` }),
  ).toBeVisible({
    timeout: HEARS_WITHIN_MS,
  });
  // ... so opening the feature now shows why instead of loading the rolled-back release.
  await navLink.click();
  const alert = page.getByRole('alert').filter({ hasText: `${title} is unavailable` });
  await expect(alert).toContainText(
    `${title} 1.1.0 was rolled back: Too many failed loads. Reload the page to use version 1.0.0.`,
  );
  expect(canaryFiles, 'the page fetched nothing of the rolled-back release').toEqual([]);
  await expectAccessible(page, 'remote-rolled-back');
  await alert.getByRole('button', { name: 'Reload' }).click();
  await expect(page.getByText(`${title} 1.0.0 works`)).toBeVisible();
  expect(canaryFiles).toEqual([]);
});

import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page, TestInfo } from '@playwright/test';
import { expect, test } from '@atrium/test-support/journey-test';
import pg from 'pg';
import { platformCredentialsFromEnv, releaseTargetFromEnv } from '@atrium/release-cli/publish-release';
import { getDeployerToken } from '@atrium/release-cli/registry-client';
import { rolloutStep } from '@atrium/release-cli/rollout-client';
import { cohortBucket } from '@atrium/api/cohort';
import {
  fixtureMetadata,
  publishFixture,
  releaseStoreDir,
  runReleaseCli,
  writeFixturePackage,
  writeFixtureRemote,
} from '@atrium/test-support/fixture-remotes';
import { openAs, signInAtKeycloak } from '@atrium/test-support/journeys';
import { realmAdmin, type TestPerson } from '@atrium/test-support/keycloak';
import { expectAccessible } from '@atrium/test-support/accessibility';

const STABLE = '1.0.0';
const CANARY = '1.1.0';
/** The stack's ROLLBACK_MIN_SAMPLES (e2e/global-setup.ts): the loads each side needs before a verdict. */
const MIN_SAMPLES = 10;
/** As many as the stack's ROLLBACK_MIN_REPORTERS: the people each side needs before a verdict. */
const PEOPLE_PER_SIDE = 2;
const AUTOMATIC = 'atrium-api (automatic rollback)';

/** How a canary is broken: what its release does, and what its people see instead of the feature. */
interface BrokenCanary {
  readonly remote: string;
  readonly title: string;
  readonly how: string;
  /** Its release as published, and what happens to it afterwards (a file lost from the store). */
  readonly behaviour: 'throws' | 'renders';
  readonly afterPublish?: () => void;
  readonly failure: string;
  /** The name of the printed figure. */
  readonly figure: string;
}

const BROKEN_CANARIES: BrokenCanary[] = [
  {
    remote: 'wobbly',
    title: 'Wobbly',
    how: 'throws on render',
    behaviour: 'throws',
    failure: 'Wobbly 1.1.0 is broken',
    figure: 'canary_rollback_ms',
  },
  {
    remote: 'wonky',
    title: 'Wonky',
    how: 'fails to download',
    behaviour: 'renders',
    // The store (or the CDN in front of it) lost the release's entry, and the copies it sends compressed.
    afterPublish: () => {
      for (const suffix of ['', '.br', '.gz']) {
        rmSync(join(releaseStoreDir(), 'wonky', CANARY, `remoteEntry.js${suffix}`), { force: true });
      }
    },
    failure: `could not be loaded from http://localhost:4100/wonky/${CANARY}/remoteEntry.js`,
    figure: 'canary_download_rollback_ms',
  },
];

/** What the API has added up for the remote so far: loads tried per version (one per page shown). */
async function attemptsByVersion(remote: string): Promise<Record<string, number>> {
  const client = new pg.Client({ connectionString: process.env.ATRIUM_E2E_DATABASE_URL });
  await client.connect();
  try {
    const { rows } = await client.query<{ version: string; attempts: string }>(
      'select version, sum(loads + failed_download + failed_integrity + failed_timeout) as attempts ' +
        'from remote_health where remote_name = $1 group by version',
      [remote],
    );
    return Object.fromEntries(rows.map((row) => [row.version, Number(row.attempts)]));
  } finally {
    await client.end();
  }
}

/** One person with the shell open in a browser of their own. */
interface Visitor {
  readonly canary: BrokenCanary;
  readonly page: Page;
  readonly inCanary: boolean;
  /** The version the page shows now. */
  showing: string;
}

async function openShell(
  browser: Browser,
  canary: BrokenCanary,
  person: TestPerson,
  inCanary: boolean,
): Promise<Visitor> {
  const page = await (await browser.newContext()).newPage();
  await page.goto(`/${canary.remote}`);
  await signInAtKeycloak(page, person.username, person.password);
  await expect(page.getByTestId('signed-in-user')).toBeVisible();
  return { canary, page, inCanary, showing: await shownVersion(canary, page) };
}

/** The version of the remote the page shows, once it shows it: the canary failing, or stable at work. */
async function shownVersion(canary: BrokenCanary, page: Page): Promise<string> {
  const main = page.getByRole('main');
  const alert = main.getByRole('alert');
  const works = main.getByText(`${canary.title} works`);
  // The failure of a download comes before the remote's slot exists; a render failure inside it.
  await expect(alert.or(works)).toBeVisible();
  if (await alert.isVisible()) {
    await expect(alert).toContainText(`${canary.title} is unavailable`);
    await expect(alert).toContainText(canary.failure);
    return CANARY;
  }
  await expect(main.locator(`[data-remote="${canary.remote}"]`)).toHaveAttribute(
    'data-remote-version',
    STABLE,
  );
  return STABLE;
}

/** When the page's shell saw the remote fail (the slot's performance mark), in ms since the epoch. */
function failedAt(visitor: Visitor): Promise<number> {
  return visitor.page.evaluate((name) => {
    const [mark] = performance.getEntriesByName(`atrium:remote-failed:${name}`);
    if (!mark) throw new Error('the shell left no failure mark');
    return performance.timeOrigin + mark.startTime;
  }, visitor.canary.remote);
}

interface AuditItem {
  occurredAt: string;
  actor: string;
  action: string;
  target: string;
  details: Record<string, unknown>;
}

for (const canaryCase of BROKEN_CANARIES) {
  test(`a canary that ${canaryCase.how} is rolled back by the API after enough failures, its people get the stable version on their next load, and the audit log says why`, async ({
    browser,
  }, testInfo) => {
    await brokenCanaryJourney(canaryCase, browser, testInfo);
  });
}

async function brokenCanaryJourney(
  broken: BrokenCanary,
  browser: Browser,
  testInfo: TestInfo,
): Promise<void> {
  const { remote } = broken;
  test.setTimeout(300_000);
  // The team's stable release, live for every signed-in person, and a broken one published beside it.
  const works = `${broken.title} works`;
  await publishFixture(remote, writeFixtureRemote(remote, 'renders', works), `/${remote}`, []);
  const release = writeFixtureRemote(remote, broken.behaviour, broken.failure);
  writeFixturePackage(release, fixtureMetadata(remote, `/${remote}`, []), CANARY);
  const published = await runReleaseCli('release', remote, ['--dir', release], release);
  expect(published.code, published.output).toBe(0);
  broken.afterPublish?.();
  // The team starts it as a canary for half of the people, with the rollout CLI.
  const started = await runReleaseCli('rollout', remote, ['start', CANARY, '--percent', '50'], release);
  expect(started.output).toContain(`canary ${CANARY} runs for 50 % of people; everybody else gets ${STABLE}`);
  expect(started.code).toBe(0);

  // People of the realm on either side of the cut, by the API's cohort rule (their Keycloak id is their
  // token's sub), each signed in in a browser of their own.
  const people: Array<{ person: TestPerson; inCanary: boolean }> = [];
  const onSide = (inCanary: boolean) => people.filter((entry) => entry.inCanary === inCanary).length;
  while (onSide(true) < PEOPLE_PER_SIDE || onSide(false) < PEOPLE_PER_SIDE) {
    const person = await realmAdmin().createPerson({ prefix: 'canary' });
    const inCanary = cohortBucket(remote, person.id) < 50;
    if (onSide(inCanary) < PEOPLE_PER_SIDE) people.push({ person, inCanary });
  }
  const visitors: Visitor[] = [];
  for (const { person, inCanary } of people) {
    visitors.push(await openShell(browser, broken, person, inCanary));
  }
  for (const visitor of visitors) expect(visitor.showing).toBe(visitor.inCanary ? CANARY : STABLE);
  await expectAccessible(visitors.find((v) => v.inCanary)!.page, 'remote-unavailable-canary');
  const firstFailure = Math.min(
    ...(await Promise.all(visitors.filter((v) => v.inCanary).map((v) => failedAt(v)))),
  );

  // Everybody keeps using it. Each reload hides the page before it, whose shell sends what it saw as it goes
  // (its telemetry batch, keepalive, signed ahead): every one must arrive, one load tried per page left.
  const target = releaseTargetFromEnv();
  const deployer = await getDeployerToken(target);
  const canary = () =>
    rolloutStep({ apiUrl: target.apiUrl, token: deployer, remote, step: { kind: 'status' } });
  const left: Record<string, number> = { [STABLE]: 0, [CANARY]: 0 };
  let rounds = 0;
  for (;;) {
    rounds += 1;
    for (const visitor of visitors) {
      // The person looks at the page for a moment, then loads it again.
      await visitor.page.waitForTimeout(1_000);
      left[visitor.showing]! += 1;
      await visitor.page.reload();
      visitor.showing = await shownVersion(broken, visitor.page);
      if (!visitor.inCanary) expect(visitor.showing).toBe(STABLE);
    }
    // Every page left has reported its load: each stable one counts; a canary one counts while the canary runs
    // (once it is rolled back, a report of it is ignored: its people are served stable).
    await expect
      .poll(
        async () => {
          const attempts = await attemptsByVersion(remote);
          const running = (await canary())?.state === 'running';
          const stable = attempts[STABLE] ?? 0;
          const canaryLoads = attempts[CANARY] ?? 0;
          return stable === left[STABLE] &&
            (running ? canaryLoads === left[CANARY] : canaryLoads <= left[CANARY]!)
            ? 'all reported'
            : `pages left ${JSON.stringify(left)}, loads reported ${JSON.stringify(attempts)}`;
        },
        { message: 'every page left reports its load as it goes', timeout: 15_000 },
      )
      .toBe('all reported');
    // Once both sides have their loads, the API decides after its next write (within a second or so).
    const reported = await attemptsByVersion(remote);
    if (Math.min(reported[STABLE] ?? 0, reported[CANARY] ?? 0) >= MIN_SAMPLES) {
      await expect
        .poll(async () => (await canary())?.state, { message: 'judged once both sides have their loads' })
        .not.toBe('running');
    }
    if ((await canary())?.state !== 'running') break;
    // Both sides have had MIN_SAMPLES loads after MIN_SAMPLES / PEOPLE_PER_SIDE rounds: the next batch decides.
    expect(rounds, 'the canary is still running after more loads than a rollback needs').toBeLessThan(
      MIN_SAMPLES / PEOPLE_PER_SIDE + 2,
    );
  }

  const ended = await canary();
  expect(ended).toMatchObject({ state: 'aborted', endedBy: AUTOMATIC, stableVersion: STABLE });
  expect(ended?.reason).toMatch(
    /^canary (\d+)\/\1 failed \(100\.0 %\) from 2 people, stable 0\/\d+ \(0\.0 %\) from 2 people: worse by more than 2\.0 % with z = [\d.]+ > 2\.33/,
  );
  // Everybody in its cohort gets the stable version on their next load, and it works.
  for (const visitor of visitors.filter((v) => v.inCanary)) {
    await visitor.page.reload();
    expect(await shownVersion(broken, visitor.page)).toBe(STABLE);
  }

  // The audit log says who rolled it back, why, and on what numbers.
  const platform = await getDeployerToken({ issuer: target.issuer, ...platformCredentialsFromEnv() });
  const audit = await fetch(`${target.apiUrl}/api/audit?pageSize=50`, {
    headers: { Authorization: `Bearer ${platform}` },
  });
  expect(audit.status).toBe(200);
  const event = ((await audit.json()) as { items: AuditItem[] }).items.find(
    (item) => item.action === 'remote.rollout.rolled_back' && item.target === `${remote}@${CANARY}`,
  );
  expect(event).toMatchObject({
    actor: AUTOMATIC,
    details: {
      reason: ended!.reason,
      stableVersion: STABLE,
      policy: { minSamples: MIN_SAMPLES, minReporters: PEOPLE_PER_SIDE, minDifference: 0.02, z: 2.33 },
    },
  });
  const evidence = event!.details as {
    canary: { attempts: number; failures: number; reporters: number };
    stable: { attempts: number; reporters: number };
  };
  expect(evidence.canary.attempts).toBeGreaterThanOrEqual(MIN_SAMPLES);
  expect(evidence.canary.failures).toBe(evidence.canary.attempts);
  expect(evidence.stable.attempts).toBeGreaterThanOrEqual(MIN_SAMPLES);
  // How many distinct people reported each side: everybody who used it, and nobody twice.
  expect([evidence.canary.reporters, evidence.stable.reporters]).toEqual([PEOPLE_PER_SIDE, PEOPLE_PER_SIDE]);

  // And an administrator sees it in the console: the canary's state with the reason, and the audit entry.
  const admin = await (await browser.newContext()).newPage();
  await openAs(admin, '/admin', 'ada');
  await admin
    .getByRole('navigation', { name: 'Registry console' })
    .getByRole('link', { name: 'Rollouts' })
    .click();
  await expect(admin.getByTestId(`rollout-state-${remote}`)).toHaveText(
    `Canary ${CANARY} was aborted by ${AUTOMATIC}: ${ended!.reason}. Everybody gets ${STABLE}.`,
  );
  await expect(admin.getByTestId(`rollouts-${remote}`).getByRole('status')).toHaveCount(0);
  await expectAccessible(admin, 'admin-rollouts-rolled-back');
  await admin
    .getByRole('navigation', { name: 'Registry console' })
    .getByRole('link', { name: 'Audit log' })
    .click();
  const row = admin
    .getByTestId('audit-table')
    .getByRole('row')
    .filter({ hasText: `Rolled back the canary of version ${CANARY}` })
    .filter({ hasText: `${remote}@${CANARY}` });
  await expect(row).toContainText(AUTOMATIC);
  await expectAccessible(admin, 'admin-audit');

  // The figure for the closing note: from the first failure a person saw to the rollback the API recorded.
  const rollbackMs = Math.round(Date.parse(event!.occurredAt) - firstFailure);
  const counts = broken.figure.replace(/_ms$/, '');
  expect(rollbackMs).toBeGreaterThan(0);
  const figures = [
    `${broken.figure}=${rollbackMs}`,
    `${counts}_failed_loads=${evidence.canary.attempts}`,
    `${counts}_stable_loads=${evidence.stable.attempts}`,
    `${counts}_min_samples=${MIN_SAMPLES}`,
  ];
  for (const line of figures) console.log(line);
  testInfo.annotations.push({ type: broken.figure, description: String(rollbackMs) });
  await testInfo.attach('canary-rollback-figures', {
    body: `${figures.join('\n')}\n`,
    contentType: 'text/plain',
  });
  for (const visitor of visitors) await visitor.page.context().close();
  await admin.context().close();
}

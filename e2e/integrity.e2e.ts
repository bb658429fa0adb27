import type { Browser, Page } from '@playwright/test';
import { expect, test } from '@atrium/test-support/journey-test';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { MANIFEST_FILE_HASHES } from '@atrium/sdk/remote-entry';
import { publishFixture, releaseStoreDir, writeFixtureRemote } from '@atrium/test-support/fixture-remotes';
import { openAs } from '@atrium/test-support/journeys';
import { expectAccessible } from '@atrium/test-support/accessibility';

// Each attack's code would set this global if it ever ran.
const PWNED = '__pwned';

/** Someone with write access to one file of the release store (or the CDN in front of it). */
/**
 * A file of the release store as an attacker with write access changes it: the file and the brotli and gzip
 * copies the store sends in its place to browsers that accept them, so the browser gets the changed bytes.
 */
class StoreFile {
  readonly path: string;
  private readonly genuine: Map<string, Buffer>;
  constructor(...relative: string[]) {
    this.path = join(releaseStoreDir(), ...relative);
    this.genuine = new Map(
      ['', '.br', '.gz']
        .map((suffix) => this.path + suffix)
        .filter((file) => existsSync(file))
        .map((file) => [file, readFileSync(file)]),
    );
  }
  write(content: string | Buffer) {
    writeFileSync(this.path, content);
    const bytes = readFileSync(this.path);
    if (this.genuine.has(`${this.path}.br`)) writeFileSync(`${this.path}.br`, brotliCompressSync(bytes));
    if (this.genuine.has(`${this.path}.gz`)) writeFileSync(`${this.path}.gz`, gzipSync(bytes));
  }
  append(content: string) {
    this.write(Buffer.concat([readFileSync(this.path), Buffer.from(content)]));
  }
  restore() {
    for (const [file, bytes] of this.genuine) writeFileSync(file, bytes);
  }
}

/**
 * A signed-in page in a browser context of its own (nothing comes from an earlier page's cache) that records what
 * it requests. (A context, not browser.newPage(): axe-core opens a page of its own in the page's context.)
 */
async function openFresh(browser: Browser, path: string) {
  const page = await (await browser.newContext()).newPage();
  const requested: string[] = [];
  const consoleErrors: string[] = [];
  page.on('request', (request) => requested.push(request.url()));
  page.on('console', (message) => {
    if (message.type() === 'error') consoleErrors.push(message.text());
  });
  await openAs(page, path, 'ada');
  return { page, requested, consoleErrors };
}

const pwned = (page: Page) =>
  page.evaluate((name) => (window as unknown as Record<string, unknown>)[name], PWNED);

/** The person keeps working: another remote renders, and the home page lists the features. */
async function expectShellStillWorks(page: Page) {
  const nav = page.getByRole('navigation', { name: 'Main' });
  await nav.getByRole('link', { name: 'Profile' }).click();
  await expect(page.getByTestId('profile-email')).toHaveText('ada@atrium.test');
  await expectAccessible(page, 'profile');
  await nav.getByRole('link', { name: 'Home' }).click();
  await expect(page.getByRole('region', { name: 'Your features' })).toBeVisible();
  await expectAccessible(page, 'home');
}

/** An ES module that would take over the remote's slot and mark the page. */
const ESM_ENTRY =
  `window.${PWNED} = 'esm';\n` +
  'export function init() {}\n' +
  'export function get() { return Promise.resolve(() => ({ Feature: () => "Injected code ran" })); }\n';

test('a manifest swapped for one naming an ES module the attacker wrote into the store is refused unread', async ({
  browser,
}) => {
  const dir = writeFixtureRemote('swapped', 'renders', 'The genuine swapped release');
  await publishFixture('swapped', dir, '/swapped');
  const manifest = new StoreFile('swapped/1.0.0/mf-manifest.json');
  writeFileSync(join(releaseStoreDir(), 'swapped/1.0.0/evil.mjs'), ESM_ENTRY);
  const forged = JSON.parse(readFileSync(manifest.path, 'utf8')) as {
    metaData: { remoteEntry: Record<string, string> };
  };
  forged.metaData.remoteEntry = { name: 'evil.mjs', path: '', type: 'module' };
  manifest.write(JSON.stringify(forged, null, 2));

  try {
    const { page, requested } = await openFresh(browser, '/swapped');
    const main = page.getByRole('main');
    await expect(main.getByRole('alert')).toContainText('Swapped is unavailable');
    await expect(main.getByRole('alert')).toContainText(
      'its manifest (http://localhost:4100/swapped/1.0.0/mf-manifest.json) is not the one the registry ' +
        'recorded at publish',
    );
    expect(await pwned(page)).toBeUndefined();
    expect(requested.filter((url) => url.includes('evil.mjs'))).toEqual([]);
    await expect(main.getByText('Injected code ran')).toHaveCount(0);
    await expectShellStillWorks(page);

    // Back in the slot: still refused while the file is changed.
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Swapped' }).click();
    await expect(main.getByRole('alert')).toContainText('Swapped is unavailable');
    // The store is repaired: Retry in the slot loads the genuine release without a reload.
    manifest.restore();
    await main.getByRole('button', { name: 'Retry' }).click();
    await expect(main.getByText('The genuine swapped release')).toBeVisible();
    expect(await pwned(page)).toBeUndefined();
    await page.context().close();
  } finally {
    manifest.restore();
  }
});

test('a manifest swapped for one pointing at another origin is refused and nothing is requested there', async ({
  browser,
}) => {
  // The attacker's own server, which counts every request that reaches it.
  const attackerRequests: string[] = [];
  const attacker = createServer((req, res) => {
    attackerRequests.push(req.url ?? '');
    res.writeHead(200, { 'Content-Type': 'text/javascript', 'Access-Control-Allow-Origin': '*' });
    res.end(`window.${PWNED} = 'other origin'; var elsewhere = {};\n`);
  });
  await new Promise<void>((resolve) => attacker.listen(0, '127.0.0.1', resolve));
  const attackerUrl = `http://127.0.0.1:${(attacker.address() as AddressInfo).port}`;

  const dir = writeFixtureRemote('elsewhere', 'renders', 'The genuine elsewhere release');
  await publishFixture('elsewhere', dir, '/elsewhere');
  const manifest = new StoreFile('elsewhere/1.0.0/mf-manifest.json');
  const forged = JSON.parse(readFileSync(manifest.path, 'utf8')) as {
    metaData: { remoteEntry: Record<string, string> };
  };
  forged.metaData.remoteEntry = { name: 'remoteEntry.js', path: attackerUrl, type: 'global' };
  manifest.write(JSON.stringify(forged, null, 2));

  try {
    const { page, requested } = await openFresh(browser, '/elsewhere');
    const main = page.getByRole('main');
    await expect(main.getByRole('alert')).toContainText('Elsewhere is unavailable');
    await expect(main.getByRole('alert')).toContainText('is not the one the registry recorded at publish');
    expect(await pwned(page)).toBeUndefined();
    expect(attackerRequests).toEqual([]);
    expect(requested.filter((url) => url.startsWith(attackerUrl))).toEqual([]);
    await expectShellStillWorks(page);

    // Back in the slot: still refused while the file is changed.
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Elsewhere' }).click();
    await expect(main.getByRole('alert')).toContainText('Elsewhere is unavailable');
    // The store is repaired: Retry in the slot loads the genuine release without a reload.
    manifest.restore();
    await main.getByRole('button', { name: 'Retry' }).click();
    await expect(main.getByText('The genuine elsewhere release')).toBeVisible();
    expect(attackerRequests).toEqual([]);
    await page.context().close();
  } finally {
    manifest.restore();
    await new Promise((resolve) => attacker.close(resolve));
  }
});

test('a published release whose manifest names an ES module entry is refused, even with matching hashes', async ({
  browser,
}) => {
  // The registry's hashes match this manifest: the shell refuses it for what it names.
  const dir = writeFixtureRemote('modular', 'renders', 'never shown');
  writeFileSync(join(dir, 'entry.mjs'), ESM_ENTRY);
  const manifestFile = join(dir, 'mf-manifest.json');
  const manifest = JSON.parse(readFileSync(manifestFile, 'utf8')) as {
    metaData: { remoteEntry: Record<string, string> };
  };
  manifest.metaData.remoteEntry = { name: 'entry.mjs', path: '', type: 'module' };
  writeFileSync(manifestFile, JSON.stringify(manifest, null, 2));
  await publishFixture('modular', dir, '/modular');

  const { page, requested } = await openFresh(browser, '/modular');
  const main = page.getByRole('main');
  await expect(main.getByRole('alert')).toContainText('Modular is unavailable');
  await expect(main.getByRole('alert')).toContainText(
    'its entry is of type "module"; only classic scripts (global or var) are run',
  );
  expect(await pwned(page)).toBeUndefined();
  expect(requested.filter((url) => url.includes('entry.mjs'))).toEqual([]);
  await expectShellStillWorks(page);
  await page.context().close();
});

test('a line appended to remoteEntry.js is refused by the browser and Retry works once the file is restored', async ({
  browser,
}) => {
  const dir = writeFixtureRemote('tampered', 'renders', 'The genuine release');
  await publishFixture('tampered', dir, '/tampered');
  const entry = new StoreFile('tampered/1.0.0/remoteEntry.js');
  entry.append(`window.${PWNED} = 'appended';\n`);

  try {
    const { page, consoleErrors } = await openFresh(browser, '/tampered');
    const main = page.getByRole('main');
    await expect(main.getByRole('alert')).toContainText('Tampered is unavailable');
    await expect(main.getByRole('alert')).toContainText(
      'could not be loaded from http://localhost:4100/tampered/1.0.0/remoteEntry.js',
    );
    expect(await pwned(page)).toBeUndefined();
    // Refused by the browser's integrity check, not by a network or CORS failure.
    expect(consoleErrors.join('\n')).toMatch(/integrity/i);
    await expectShellStillWorks(page);

    // Back in the slot: still refused while the file is changed.
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Tampered' }).click();
    await expect(main.getByRole('alert')).toContainText('Tampered is unavailable');
    // The store is repaired: Retry in the slot loads the genuine release without a reload.
    entry.restore();
    await main.getByRole('button', { name: 'Retry' }).click();
    await expect(main.getByText('The genuine release')).toBeVisible();
    expect(await pwned(page)).toBeUndefined();
    await page.context().close();
  } finally {
    entry.restore();
  }
});

/** What a manifest lists for an exposed module. */
interface ProfileAssets {
  js: { sync: string[] };
  css: { sync: string[] };
}

/** The Profile release the stack published from its real build, as the person first uses it. */
async function profileRelease(browser: Browser) {
  const { page, consoleErrors } = await openFresh(browser, '/profile');
  await expect(page.getByTestId('profile-email')).toHaveText('ada@atrium.test');
  const version = await page.locator('[data-remote="profile"]').getAttribute('data-remote-version');
  await page.context().close();
  // Its Feature's files loaded with the hashes its manifest records: a wrong one would be refused, loudly.
  expect(consoleErrors.join('\n')).not.toMatch(/integrity/i);
  const manifest = JSON.parse(
    readFileSync(join(releaseStoreDir(), 'profile', version!, 'mf-manifest.json'), 'utf8'),
  ) as Record<string, unknown> & {
    exposes: { assets: { js: { sync: string[] }; css: { sync: string[] } } }[];
  };
  // The build recorded them, so the shell loaded them alongside the entry rather than after it.
  expect(Object.keys(manifest[MANIFEST_FILE_HASHES] as object)).toEqual(
    expect.arrayContaining([manifest.exposes[0]!.assets.js.sync[0], manifest.exposes[0]!.assets.css.sync[0]]),
  );
  return { version: version!, manifest };
}

/** Whether the attacker's change ran or applied: their code sets a global, their style sheet a property. */
const attackTook = (page: Page) =>
  page.evaluate(
    (name) =>
      (window as unknown as Record<string, unknown>)[name] !== undefined ||
      getComputedStyle(document.body).getPropertyValue(`--${name}`) !== '',
    PWNED,
  );

// A file behind Profile's Feature, loaded with the hash its verified manifest records (alongside the entry) and
// with the hash remoteEntry.js holds (by the remote's own runtime): both refuse the changed copy.
for (const attack of [
  {
    title: 'a changed chunk of a real release is refused by its hash, and Retry works once it is restored',
    file: (assets: ProfileAssets) => assets.js.sync[0]!,
    change: `;window.${PWNED} = 'chunk';\n`,
    // The runtime's error names the script it could not load.
    namesTheFile: true,
  },
  {
    // Style sheets can read a page too (attribute selectors that fetch a URL per character).
    title: 'a changed style sheet of a real release is refused by its hash and never applies',
    file: (assets: ProfileAssets) => assets.css.sync[0]!,
    change: `\nbody { --${PWNED}: yes; }\n`,
    namesTheFile: false,
  },
]) {
  test(attack.title, async ({ browser }) => {
    const { version, manifest } = await profileRelease(browser);
    const fileName = attack.file(manifest.exposes[0]!.assets);
    const file = new StoreFile('profile', version, fileName);
    file.append(attack.change);

    try {
      const { page, consoleErrors } = await openFresh(browser, '/profile');
      const main = page.getByRole('main');
      await expect(main.getByRole('alert')).toContainText('Profile is unavailable');
      if (attack.namesTheFile) {
        await expect(main.getByRole('alert')).toContainText(
          `could not be loaded from http://localhost:4100/profile/${version}/${fileName}`,
        );
      }
      await expectAccessible(page, 'remote-unavailable-integrity');
      expect(await attackTook(page)).toBe(false);
      expect(consoleErrors.join('\n')).toMatch(/integrity/i);
      // Another remote still works.
      const nav = page.getByRole('navigation', { name: 'Main' });
      await nav.getByRole('link', { name: 'Admin' }).click();
      await expect(page.getByRole('heading', { name: 'Registry console' })).toBeVisible();

      // Back in the slot: still refused while the file is changed.
      await nav.getByRole('link', { name: 'Profile' }).click();
      await expect(main.getByRole('alert')).toContainText('Profile is unavailable');
      // The store is repaired: Retry in the slot loads the genuine release without a reload.
      file.restore();
      await main.getByRole('button', { name: 'Retry' }).click();
      await expect(page.getByTestId('profile-email')).toHaveText('ada@atrium.test');
      expect(await attackTook(page)).toBe(false);
      await page.context().close();
    } finally {
      file.restore();
    }
  });
}

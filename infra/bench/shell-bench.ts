// `npm run bench:shell`: the shell's time to its first feature, measured in Chromium, and the bytes a page load
// costs over the wire. A benchmark, not a test: see docs/adr/0010-shell-benchmark.md.
//
// One run starts the platform as production serves it: Keycloak, the API (SQLite), the release store and the
// shell each behind their image's nginx configuration (immutable caching, brotli and gzip copies; see
// infra/dev/image-nginx.ts), with the bundled remotes published. Two shell builds take turns at the shell's
// address: the shell itself, which loads the `profile` remote through the registry and Module Federation, and
// the harness (./local-feature/build.ts), the same shell with profile's Feature compiled in as a lazy chunk.
// For each, one signed-in tab (alice) loads /profile ROUNDS times with the browser's cache cleared (cold) and
// once more right after (warm, a reload). The figure is the shell's own performance marks: `atrium:shell-ready`
// (the signed-in shell has rendered) to `atrium:remote-rendered:profile` (the feature has rendered in its slot),
// the same marks in both builds. Bytes are Chromium's own count of what each response took on the wire
// (CDP Network.loadingFinished encodedDataLength: headers and compressed body; nothing for the cache).
import { chmodSync, mkdirSync, mkdtempSync, renameSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type CDPSession, type Page } from '@playwright/test';
import { buildStale } from '../dev/build.ts';
import { CHROMIUM_FLAGS } from '../dev/chromium-flags.ts';
import { startStack, type Stack } from '../dev/stack.ts';
import { ensureChromium, ensureNginx, systemContext } from '../dev/system-parts.ts';
import { buildLocalFeatureShell, localRemote } from './local-feature/build.ts';
import { repoRoot } from '../lib/paths.ts';

const ROUNDS = Math.min(50, Math.max(1, Number(process.env['BENCH_SHELL_ROUNDS'] ?? 10)));
/** Prints each request of the last round's loads, relative to shell-ready (BENCH_SHELL_TRACE=1). */
const TRACE = process.env['BENCH_SHELL_TRACE'] === '1';
const REMOTE = 'profile';
const TARGET_RATIO = 1.2;

type Variant = 'remote' | 'local';
type Cache = 'cold' | 'warm';

const log = (line: string) => console.log(line);
const quiet = (line: string) => {
  if (/error|fail|NOT /i.test(line)) console.log(line);
};

// Chromium and nginx, obtained as `npm test` obtains them.
const system = systemContext((line) => console.log(`  ${line}`));
const chromiumPath = ensureChromium(system);
ensureNginx(system);

log('building what is stale (API, shell, remotes) and the harness shell…');
await buildStale(repoRoot, (line) => console.log(`  ${line}`));
// nginx's workers run as an unprivileged user: everything they serve must be readable by all.
const scratch = mkdtempSync(join(tmpdir(), 'atrium-shell-bench-'));
chmodSync(scratch, 0o755);
/** What to stop and remove at the end, or when starting fails; last in, first out. */
const cleanups: (() => unknown)[] = [() => rmSync(scratch, { recursive: true, force: true })];
async function cleanUp(): Promise<void> {
  for (const cleanup of cleanups.reverse()) await cleanup();
}
const builds: Record<Variant, string> = {
  remote: join(repoRoot, 'shell/app/dist'),
  local: join(scratch, 'local-feature-shell'),
};
const localVersion = localRemote(REMOTE).remote.version;

/** Points the shell's address at one build: nginx's root is a symbolic link, replaced in one rename. */
const shellRoot = join(scratch, 'shell');
function serve(variant: Variant): void {
  const next = join(scratch, 'shell.next');
  rmSync(next, { force: true });
  symlinkSync(builds[variant], next);
  renameSync(next, shellRoot);
}

let stack: Stack;
let browser: Browser;
try {
  await buildLocalFeatureShell(REMOTE, builds.local);
  serve('remote');
  const releasesDir = join(scratch, 'releases');
  mkdirSync(releasesDir, { mode: 0o755 });
  // Long-lived tokens: a renewal in the middle of a measured load would be measured with it.
  process.env['ATRIUM_ACCESS_TOKEN_LIFESPAN'] ??= '1200';
  log('starting the platform (Keycloak, API, release store and shell behind their nginx)…');
  stack = await startStack({
    staticServers: 'nginx',
    shellDir: shellRoot,
    releasesDir,
    keycloakDataDir: join(scratch, 'keycloak'),
    mailDir: join(scratch, 'mail'),
    databaseUrl: `sqlite:${join(scratch, 'atrium.db')}`,
    log: quiet,
  });
  cleanups.push(() => stack.stop());
  browser = await chromium.launch({
    executablePath: chromiumPath,
    args: [...CHROMIUM_FLAGS],
  });
  cleanups.push(() => browser.close());
} catch (error) {
  await cleanUp();
  throw error;
}

interface Tab {
  readonly variant: Variant;
  readonly context: BrowserContext;
  readonly page: Page;
  readonly cdp: CDPSession;
}

/** Bytes on the wire by where they came from. */
type Bytes = Record<'shell' | 'releases' | 'api' | 'keycloak' | 'other', number>;

interface Load {
  /** shell-ready to the feature rendered. */
  readonly ms: number;
  /** The navigation's start to the feature rendered. */
  readonly fromNavigation: number;
  readonly bytes: Bytes;
  /** Content-Encoding of each script and style sheet the shell and the release store sent over the wire. */
  readonly encodings: readonly string[];
  readonly trace: readonly string[];
}

const origins = {
  shell: new URL(stack.urls.shell).origin,
  releases: new URL(stack.urls.releases).origin,
  api: new URL(stack.urls.api).origin,
  keycloak: new URL(stack.urls.keycloak).origin,
};
function originOf(url: string): keyof Bytes {
  const origin = URL.canParse(url) ? new URL(url).origin : '';
  const found = (Object.keys(origins) as (keyof typeof origins)[]).find((key) => origins[key] === origin);
  return found ?? 'other';
}

/** A signed-in tab on one build: alice signs in at Keycloak once; the session then survives reloads. */
async function openTab(variant: Variant): Promise<Tab> {
  serve(variant);
  const context = await browser.newContext({ baseURL: stack.urls.shell });
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('Network.enable');
  await page.goto(`/${REMOTE}`);
  await page.getByLabel(/username or email/i).fill('alice');
  await page.getByLabel('Password', { exact: true }).fill('alice');
  await page.getByRole('button', { name: /sign in/i }).click();
  await page.waitForFunction(
    (name) => performance.getEntriesByName(`atrium:remote-rendered:${name}`).length > 0,
    REMOTE,
    { timeout: 60_000 },
  );
  return { variant, context, page, cdp };
}

/** Loads /profile in the tab (after clearing the browser's cache when cold) and measures it. */
async function measure(tab: Tab, cache: Cache): Promise<Load> {
  serve(tab.variant);
  if (cache === 'cold') await tab.cdp.send('Network.clearBrowserCache');
  const urls = new Map<string, string>();
  const encodings: string[] = [];
  const bytes: Bytes = { shell: 0, releases: 0, api: 0, keycloak: 0, other: 0 };
  // Only what the new page asks for: a report the page being left sends as it goes is the old page's.
  let page: string | undefined;
  const onRequest = (event: {
    requestId: string;
    loaderId: string;
    type?: string;
    request: { url: string };
  }) => {
    if (page === undefined && event.type === 'Document') page = event.loaderId;
    if (event.loaderId === page) urls.set(event.requestId, event.request.url);
  };
  const onResponse = (event: {
    requestId: string;
    type: string;
    response: { url: string; headers: Record<string, string>; fromDiskCache?: boolean; status: number };
  }) => {
    const { response } = event;
    if (!urls.has(event.requestId)) return;
    const where = originOf(response.url);
    if (
      (event.type === 'Script' || event.type === 'Stylesheet') &&
      (where === 'shell' || where === 'releases')
    ) {
      if (response.status === 200 && !response.fromDiskCache) {
        const header = Object.entries(response.headers).find(([name]) => /^content-encoding$/i.test(name));
        encodings.push(header?.[1] ?? 'identity');
      }
    }
  };
  const onFinished = (event: { requestId: string; encodedDataLength: number }) => {
    const url = urls.get(event.requestId);
    if (url !== undefined) bytes[originOf(url)] += event.encodedDataLength;
  };
  tab.cdp.on('Network.requestWillBeSent', onRequest);
  tab.cdp.on('Network.responseReceived', onResponse);
  tab.cdp.on('Network.loadingFinished', onFinished);
  try {
    await tab.page.goto(`/${REMOTE}`);
    await tab.page.waitForFunction(
      (name) =>
        performance.getEntriesByName(`atrium:remote-rendered:${name}`).length > 0 ||
        performance.getEntriesByName(`atrium:remote-failed:${name}`).length > 0,
      REMOTE,
      { timeout: 30_000 },
    );
    const marks = await tab.page.evaluate((name) => {
      const at = (mark: string) => performance.getEntriesByName(mark)[0]?.startTime;
      return {
        ready: at('atrium:shell-ready'),
        rendered: at(`atrium:remote-rendered:${name}`),
        release: document.querySelector('[data-testid="remote-release"]')?.textContent ?? '',
      };
    }, REMOTE);
    if (marks.ready === undefined || marks.rendered === undefined) {
      throw new Error(`${tab.variant} (${cache}): ${REMOTE} did not render (${JSON.stringify(marks)})`);
    }
    // The build that answered is the one meant: the harness's feature says it is the local copy.
    if (marks.release.includes(localVersion) !== (tab.variant === 'local')) {
      throw new Error(
        `${tab.variant} (${cache}): the page shows "${marks.release}", not the ${tab.variant} build`,
      );
    }
    // Everything the load asks for (the feature's own API calls included) before counting bytes.
    await tab.page.waitForLoadState('networkidle');
    const trace = TRACE ? await waterfall(tab.page, marks.ready) : [];
    return { ms: marks.rendered - marks.ready, fromNavigation: marks.rendered, bytes, encodings, trace };
  } finally {
    tab.cdp.off('Network.requestWillBeSent', onRequest);
    tab.cdp.off('Network.responseReceived', onResponse);
    tab.cdp.off('Network.loadingFinished', onFinished);
  }
}

/** Each request of the page load and the marks, in ms relative to shell-ready: start → end, bytes, URL. */
function waterfall(page: Page, ready: number): Promise<string[]> {
  return page.evaluate((zero) => {
    const entries = [
      ...performance.getEntriesByType('resource').map((entry) => {
        const resource = entry as PerformanceResourceTiming;
        return {
          at: resource.startTime,
          line: `${(resource.startTime - zero).toFixed(1).padStart(8)} → ${(resource.responseEnd - zero).toFixed(1).padStart(7)}  ${String(resource.transferSize).padStart(7)} B  ${resource.name}`,
        };
      }),
      ...performance.getEntriesByType('mark').map((mark) => ({
        at: mark.startTime,
        line: `${(mark.startTime - zero).toFixed(1).padStart(8)}   mark ${mark.name}`,
      })),
    ];
    return entries.sort((a, b) => a.at - b.at).map((entry) => entry.line);
  }, ready);
}

const median = (values: readonly number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};
const total = (bytes: Bytes) => Object.values(bytes).reduce((sum, value) => sum + value, 0);

const results: Record<Variant, Record<Cache, Load[]>> = {
  remote: { cold: [], warm: [] },
  local: { cold: [], warm: [] },
};
try {
  const tabs: Record<Variant, Tab> = { remote: await openTab('remote'), local: await openTab('local') };
  log(`${ROUNDS} rounds; each loads /${REMOTE} per build with the cache cleared (cold), then again (warm)`);
  for (let round = 0; round < ROUNDS; round++) {
    // Alternating which build goes first, so that neither always follows the other.
    const order: Variant[] = round % 2 === 0 ? ['remote', 'local'] : ['local', 'remote'];
    const line: string[] = [];
    for (const variant of order) {
      for (const cache of ['cold', 'warm'] as const) {
        const load = await measure(tabs[variant], cache);
        results[variant][cache].push(load);
        line.push(`${variant} ${cache} ${load.ms.toFixed(1)}`);
      }
    }
    log(`round ${round + 1}: ${line.join(', ')} ms`);
  }
  if (TRACE) {
    for (const variant of ['remote', 'local'] as const) {
      for (const cache of ['cold', 'warm'] as const) {
        log(`\n${variant} build, ${cache}, last round (ms from shell-ready; bytes on the wire):`);
        for (const entry of results[variant][cache].at(-1)!.trace) log(entry);
      }
    }
    log('');
  }
  for (const tab of Object.values(tabs)) await tab.context.close();
} finally {
  await cleanUp();
}

const p50 = (variant: Variant, cache: Cache) => median(results[variant][cache].map((load) => load.ms));
// The same loads from the navigation's start (the marks' own time origin), whatever moves shell-ready.
const p50FromNavigation = (variant: Variant, cache: Cache) =>
  median(results[variant][cache].map((load) => load.fromNavigation));
const ratios: Record<Cache, number> = {
  cold: p50('remote', 'cold') / p50('local', 'cold'),
  warm: p50('remote', 'warm') / p50('local', 'warm'),
};
for (const cache of ['cold', 'warm'] as const) {
  const perRound = results.remote[cache].map((load, round) => load.ms / results.local[cache][round]!.ms);
  log(
    `${cache}: per-round ratio ${perRound.map((ratio) => ratio.toFixed(2)).join(' ')} ` +
      `(lowest ${Math.min(...perRound).toFixed(2)}, highest ${Math.max(...perRound).toFixed(2)})`,
  );
}
const encodings = results.remote.cold.flatMap((load) => load.encodings);
const tally = [...new Set(encodings)].map((name) => `${name} ×${encodings.filter((e) => e === name).length}`);
log(`scripts and style sheets over the wire (remote build, cold): ${tally.join(', ')}`);
const bytesOf = (cache: Cache) => {
  const loads = results.remote[cache];
  const byOrigin: Record<string, number> = Object.fromEntries(
    Object.keys(loads[0]!.bytes).map((key) => [key, median(loads.map((l) => l.bytes[key as keyof Bytes]))]),
  );
  return { total: median(loads.map((load) => total(load.bytes))), byOrigin };
};
const firstLoad = bytesOf('cold');
const reload = bytesOf('warm');
const breakdown = (bytes: Record<string, number>) =>
  Object.entries(bytes)
    .filter(([, value]) => value > 0)
    .map(([key, value]) => `${key} ${value}`)
    .join(', ');
log(`first load bytes by origin (p50): ${breakdown(firstLoad.byOrigin)}`);
log(`reload bytes by origin (p50): ${breakdown(reload.byOrigin)}`);
for (const variant of ['remote', 'local'] as const) {
  for (const cache of ['cold', 'warm'] as const) {
    log(`first_feature_${variant}_${cache}_p50_ms=${p50(variant, cache).toFixed(1)}`);
  }
}
for (const cache of ['cold', 'warm'] as const) {
  for (const variant of ['remote', 'local'] as const) {
    log(`feature_from_navigation_${variant}_${cache}_p50_ms=${p50FromNavigation(variant, cache).toFixed(1)}`);
  }
  const ratio = p50FromNavigation('remote', cache) / p50FromNavigation('local', cache);
  log(`feature_from_navigation_ratio_${cache}=${ratio.toFixed(2)}`);
}
log(`first_feature_ratio_cold=${ratios.cold.toFixed(2)}`);
log(`first_feature_ratio_warm=${ratios.warm.toFixed(2)}`);
// The target holds only if it holds for both a first visit and a reload.
log(`first_feature_ratio=${Math.max(ratios.cold, ratios.warm).toFixed(2)} (target <= ${TARGET_RATIO})`);
log(`first_load_bytes=${firstLoad.total}`);
log(`reload_bytes=${reload.total}`);

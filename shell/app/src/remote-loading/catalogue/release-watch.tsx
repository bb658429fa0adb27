import type { ApiClient, RemoteDescriptor } from '@atrium/sdk';
import { Button } from '@atrium/sdk/ui';
import { useEffect, useState } from 'react';
import { createRoot } from 'react-dom/client';
import type { ListedRemote } from '../loader/remote-loader';
import type { CatalogueState } from './catalogue-state';
import type { rememberRemotes } from './remembered-remotes';
import type { parseRemotes } from './remotes-list';

/** How often an open, visible page asks the registry whether what it runs is still served. */
export const RELEASE_CHECK_INTERVAL_MS = 10_000;
/** Coming back to the tab checks at once, but not more often than this. */
const MIN_CHECK_GAP_MS = 2_000;

/** A release of a listed remote the registry no longer serves (`withdrawn` in `GET /api/remotes`). */
export interface PulledRelease {
  readonly name: string;
  readonly version: string;
  readonly kind: 'withdrawn' | 'rolled-back';
  readonly reason: string;
}

/** What the watch needs of the page's catalogue (./remote-catalogue.ts), which starts it. */
export interface WatchedCatalogue {
  readonly getSnapshot: () => CatalogueState;
  readonly markPulled: (remotes: readonly ListedRemote[]) => void;
}

export interface ReleaseWatchProps {
  readonly catalogue: WatchedCatalogue;
  readonly api: Pick<ApiClient, 'get'>;
  readonly remotesUrl: string;
  /**
   * How the catalogue reads the registry's list (./remotes-list.ts), handed over rather than imported: a module
   * of the shell's first load that a lazy chunk imports costs that load its own module wrapper.
   */
  readonly parse: typeof parseRemotes;
  /**
   * Keeps the registry's newer list for the next page (./remembered-remotes.ts), so that a reload does not
   * fetch ahead a release the registry no longer serves. Handed over for the same reason as `parse`.
   */
  readonly remember: (remotes: Parameters<typeof rememberRemotes>[0]) => void;
}

/**
 * Keeps an open page true to the registry without changing what it runs behind the person's back (a page keeps
 * the list it adopted, so its remotes never mix releases). Every {@link RELEASE_CHECK_INTERVAL_MS} while the
 * page is visible, and when the person comes back to it, it asks for the list again:
 *
 * - a release the page holds that the registry pulled (an administrator withdrew it, or its canary was rolled
 *   back) is marked as pulled in the catalogue's adopted list, with why: the loader refuses it from then on, so
 *   a slot showing it shows why instead, and one that has not loaded it never does;
 * - if the registry now serves other releases than the page started with, a quiet notice offers a reload, which
 *   the person takes when it suits them ("Later" hides it until the next change).
 *
 * A chunk of its own, which the catalogue starts once it adopted a session's list ({@link watchReleases}).
 */
export function ReleaseWatch({ catalogue, api, remotesUrl, parse, remember }: ReleaseWatchProps) {
  const [newer, setNewer] = useState<{ readonly titles: readonly string[]; readonly key: string }>();
  const [dismissed, setDismissed] = useState<string>();

  useEffect(() => {
    const aborts = new AbortController();
    let lastCheck = Date.now();

    const check = async () => {
      lastCheck = Date.now();
      const raw = await api.get<unknown>(remotesUrl, { signal: aborts.signal }).catch(() => undefined);
      const { step, remotes: adopted, listed } = catalogue.getSnapshot();
      if (raw === undefined || aborts.signal.aborted || step !== 'adopted' || !adopted || !listed) return;
      const fresh = parse(raw, remotesUrl);
      const pulled = parsePulled(raw);
      const pulledOf = (remote: ListedRemote) =>
        remote.pulled === undefined
          ? pulled.find(({ name, version }) => name === remote.name && version === remote.version)
          : undefined;
      if (adopted.some(pulledOf)) {
        catalogue.markPulled(
          adopted.map((remote) => {
            const release = pulledOf(remote);
            return release ? { ...remote, pulled: pulledMessage(remote, release, fresh) } : remote;
          }),
        );
      }
      const changed = changedReleases(listed, fresh);
      if (changed) remember(fresh);
      setNewer(changed);
    };

    const interval = setInterval(() => {
      if (document.visibilityState === 'visible') void check();
    }, RELEASE_CHECK_INTERVAL_MS);
    const onReturn = () => {
      if (document.visibilityState === 'visible' && Date.now() - lastCheck >= MIN_CHECK_GAP_MS) void check();
    };
    document.addEventListener('visibilitychange', onReturn);
    window.addEventListener('focus', onReturn);
    return () => {
      aborts.abort();
      clearInterval(interval);
      document.removeEventListener('visibilitychange', onReturn);
      window.removeEventListener('focus', onReturn);
    };
  }, [catalogue, api, remotesUrl, parse, remember]);

  const shown = newer !== undefined && newer.key !== dismissed ? newer : undefined;
  // The live region is always there, so a screen reader announces the notice when it appears.
  return (
    <div className="release-notice" role="status" hidden={shown === undefined}>
      {shown && (
        <>
          <p>{newerSentence(shown.titles)} Reload the page to use it when it suits you.</p>
          <Button onClick={() => window.location.reload()}>Reload</Button>
          <Button variant="secondary" onClick={() => setDismissed(shown.key)}>
            Later
          </Button>
        </>
      )}
    </div>
  );
}

/**
 * Runs {@link ReleaseWatch} for a signed-in session's adopted list until `signal` aborts (the session closed, or
 * its list was asked for again), its notice at the foot of the window: a React root of its own, so that none of
 * it is in the shell's initial JavaScript.
 */
export function watchReleases(
  catalogue: WatchedCatalogue,
  session: Omit<ReleaseWatchProps, 'catalogue'>,
  signal: AbortSignal,
): void {
  if (signal.aborted) return;
  const container = document.body.appendChild(document.createElement('div'));
  const root = createRoot(container);
  root.render(<ReleaseWatch catalogue={catalogue} {...session} />);
  signal.addEventListener('abort', () => {
    root.unmount();
    container.remove();
  });
}

/** The pulled releases of the registry's answer; a malformed item is left out. */
export function parsePulled(raw: unknown): PulledRelease[] {
  const items =
    typeof raw === 'object' && raw !== null ? (raw as { withdrawn?: unknown }).withdrawn : undefined;
  if (!Array.isArray(items)) return [];
  return items.filter(
    (item: unknown): item is PulledRelease =>
      typeof item === 'object' &&
      item !== null &&
      typeof (item as PulledRelease).name === 'string' &&
      typeof (item as PulledRelease).version === 'string' &&
      typeof (item as PulledRelease).reason === 'string' &&
      ((item as PulledRelease).kind === 'withdrawn' || (item as PulledRelease).kind === 'rolled-back'),
  );
}

/** What the slot of a pulled release says: what happened, why, and what to do. */
export function pulledMessage(
  held: RemoteDescriptor,
  release: PulledRelease,
  fresh: readonly RemoteDescriptor[],
): string {
  const what = release.kind === 'withdrawn' ? 'was withdrawn' : 'was rolled back';
  const why = release.reason.trim() === '' ? '' : `: ${release.reason.trim().replace(/\.$/, '')}`;
  const current = fresh.find(({ name }) => name === held.name);
  const next =
    current && current.version !== held.version
      ? `Reload the page to use version ${current.version}.`
      : 'Reload the page to use the version available now.';
  return `${held.title} ${held.version} ${what}${why}. ${next}`;
}

/**
 * The remotes whose release the registry serves now differs from the one the page started with (another
 * version, a new remote, one gone), by title; undefined when none does. `key` names the change.
 */
export function changedReleases(
  listed: readonly RemoteDescriptor[],
  fresh: readonly RemoteDescriptor[],
): { readonly titles: readonly string[]; readonly key: string } | undefined {
  const release = ({ version, entry }: RemoteDescriptor) => `${version} ${entry}`;
  const before = new Map(listed.map((remote) => [remote.name, remote]));
  const after = new Map(fresh.map((remote) => [remote.name, remote]));
  const changed = [...new Set([...before.keys(), ...after.keys()])].filter((name) => {
    const [was, is] = [before.get(name), after.get(name)];
    return was === undefined || is === undefined || release(was) !== release(is);
  });
  if (changed.length === 0) return undefined;
  return {
    titles: changed.map((name) => (after.get(name) ?? before.get(name))!.title),
    key: fresh.map((remote) => `${remote.name}@${release(remote)}`).join('\n'),
  };
}

function newerSentence(titles: readonly string[]): string {
  const list = new Intl.ListFormat('en', { type: 'conjunction' }).format(titles);
  return titles.length === 1
    ? `A new version of ${list} is available.`
    : `New versions of ${list} are available.`;
}

import type { RemoteDescriptor } from '@atrium/sdk';
import type { ListedRemote } from '../loader/remote-loader';

/*
 * The states of the registry's list in one page (./remote-catalogue.ts takes it from one to the next). A list
 * goes
 *
 *   remembered → early → fresh → (dev overrides applied) → adopted
 *
 * - remembered: the release the page opens at, as the list the previous page kept named it (a hint, checked and
 *   fetched ahead, never run);
 * - early: the list asked for with the stored session while the page still starts; it is adopted as soon as it is
 *   read (unless the tab has dev overrides), and it serves the page's first signed-in session once;
 * - fresh: the registry's list for the signed-in session (the early one, or asked for then);
 * - adopted: the list the page runs, with this tab's dev overrides applied: only its releases may load.
 */

/** The list asked for while the page starts: not asked (or nothing to read), on its way, read, or taken. */
export type EarlyStatus = 'none' | 'asking' | 'answered' | 'taken';

/**
 * Where the signed-in session's list is: no session (`closed`), the registry asked or its early answer awaited
 * (`loading`), its list in while this tab's dev overrides are applied to it (`fresh`), the list the page runs
 * (`adopted`), or it could not be read (`failed`, with Retry).
 */
export type ListStep = 'closed' | 'loading' | 'fresh' | 'adopted' | 'failed';

export interface CatalogueState {
  /** The release of the page's path in the list the previous page kept. */
  readonly remembered?: RemoteDescriptor | undefined;
  readonly early: EarlyStatus;
  readonly step: ListStep;
  /** The registry's list at `fresh`, the adopted one at `adopted` (where a pulled release is marked). */
  readonly remotes?: readonly ListedRemote[] | undefined;
  /** The registry's list as it answered, before dev overrides: what later answers are compared with. */
  readonly listed?: readonly RemoteDescriptor[] | undefined;
  /** Why the list could not be read, at `failed`. */
  readonly error?: unknown;
}

export const initialCatalogueState: CatalogueState = { early: 'none', step: 'closed' };

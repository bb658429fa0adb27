import { ApiProblemError, type ApiClient, type RemoteDescriptor } from '@atrium/sdk';
import { Button } from '@atrium/sdk/ui';
import { useEffect, useState } from 'react';
import { createRoot } from 'react-dom/client';
import {
  applyDevOverrides,
  clearDevOverrides,
  decideDevOverrides,
  devOverrideConfig,
  type DevOverride,
  type DevOverrideContext,
  type DevOverrideDecision,
  devOverrideProblem,
  devServerFolder,
  forgetDevOverride,
  platformOrigins,
  requestedDevOverride,
  storeDevOverride,
} from './dev-override';
import { DEV_OVERRIDE_PARAM } from './dev-override-keys';

/** What the shell hands this chunk: the person, its run-time config and its API client. */
export interface DevOverrideSession {
  /** The signed-in person's realm roles. */
  readonly roles: readonly string[];
  /** The run-time config: `devOverrides`, and the API's and the identity provider's URLs (platform origins). */
  readonly config: {
    readonly devOverrides?: unknown;
    readonly apiBaseUrl: string;
    readonly oidc: { readonly authority: string };
  };
  readonly api: ApiClient;
}

/** The registry's list with the overrides that run applied, and the dev servers they run from. */
export interface OverriddenList {
  readonly remotes: RemoteDescriptor[];
  /** The folder of each overridden remote's dev server, whose files the loader is to trust (devServerFolder). */
  readonly devServers: { readonly remote: string; readonly folder: string }[];
}

/**
 * The shell's one way into this chunk, before any remote loads: the registry's list with the overrides that may
 * run applied (decideDevOverrides, applyDevOverrides) and their dev servers, and the banner, in a root of its own
 * above the shell so that the shell's first bundle carries none of it.
 */
export async function startDevOverrides(
  { roles, config, api }: DevOverrideSession,
  remotes: readonly RemoteDescriptor[],
): Promise<OverriddenList> {
  const context: DevOverrideContext = {
    roles,
    config: devOverrideConfig(config.devOverrides),
    platform: platformOrigins(config, remotes),
    remotes,
  };
  const decision = decideDevOverrides(context, api);
  const host = document.createElement('div');
  document.body.prepend(host);
  createRoot(host).render(<DevOverridePanel context={context} decision={decision} api={api} />);
  const active = (await decision).active.filter(({ remote }) => remotes.some(({ name }) => name === remote));
  return {
    remotes: await applyDevOverrides(active, remotes),
    devServers: active.map((override) => ({ remote: override.remote, folder: devServerFolder(override) })),
  };
}

export interface DevOverridePanelProps {
  readonly context: DevOverrideContext;
  /** Which of the tab's stored overrides run in this page (decideDevOverrides). */
  readonly decision: Promise<DevOverrideDecision>;
  readonly api: Pick<ApiClient, 'request'>;
}

type Activation =
  | { readonly status: 'none' }
  | { readonly status: 'confirming'; readonly origin: string }
  | { readonly status: 'checking' }
  | { readonly status: 'refused'; readonly reason: string };

/** This page's address without `?atrium-dev-override=…`. */
function addressWithoutRequest(): string {
  const url = new URL(window.location.href);
  url.searchParams.delete(DEV_OVERRIDE_PARAM);
  return `${url.pathname}${url.search}${url.hash}`;
}

/** The API's refusal as a sentence of its own (its `detail` ends with a full stop). */
const sentence = (text: string) => (text.endsWith('.') ? text : `${text}.`);

/**
 * The dev-override banner (which remote runs from which dev server, with a one-click reset; which stored override
 * is ignored and why) and the activation of a requested override: checked here (role, origins, remote), then
 * shown for the person to confirm by its origin, then approved and audited by the API for this session, then
 * kept for this tab's session and applied by reloading the page. A link alone changes nothing: until the person
 * confirms, the registry's release runs. A refusal is shown and nothing of the dev server runs.
 */
export function DevOverridePanel({ context, decision, api }: DevOverridePanelProps) {
  // Fixed for the page's life: activating or resetting reloads it.
  const [requested] = useState<DevOverride | null>(() => requestedDevOverride(window.location.search));
  const [decided, setDecided] = useState<DevOverrideDecision>({ active: [], ignored: [] });
  const [activation, setActivation] = useState<Activation>(() => {
    if (requested === null) return { status: 'none' };
    const problem = devOverrideProblem(requested, context);
    return problem === undefined
      ? { status: 'confirming', origin: new URL(requested.url).origin }
      : { status: 'refused', reason: sentence(problem) };
  });

  useEffect(() => {
    let current = true;
    void decision.then((value) => current && setDecided(value));
    return () => {
      current = false;
    };
  }, [decision]);

  const checking = activation.status === 'checking';
  useEffect(() => {
    if (!checking || requested === null) return;
    api.request('POST', '/api/dev-overrides', requested).then(
      () => {
        storeDevOverride(requested);
        window.location.replace(addressWithoutRequest());
      },
      (error: unknown) =>
        setActivation({
          status: 'refused',
          reason:
            error instanceof ApiProblemError
              ? sentence(error.detail ?? error.title)
              : 'the API could not be asked; try again.',
        }),
    );
  }, [checking, requested, api]);

  const cancel = () => {
    window.history.replaceState(window.history.state, '', addressWithoutRequest());
    setActivation({ status: 'none' });
    // The question and its buttons are gone: focus goes to the page the person was on.
    document.getElementById('main')?.focus();
  };
  // The API's approvals of this session go too, so nothing planted later finds one to ride on.
  const reset = async () => {
    clearDevOverrides();
    await api.request('DELETE', '/api/dev-overrides').catch(() => undefined);
    window.location.replace(addressWithoutRequest());
  };

  const forget = (override: DevOverride) => {
    forgetDevOverride(override);
    window.location.replace(addressWithoutRequest());
  };

  return (
    <div className="dev-override" data-testid="dev-override">
      {activation.status === 'confirming' && (
        <div
          role="alertdialog"
          aria-labelledby="dev-override-confirm-title"
          data-testid="dev-override-confirm"
        >
          <p id="dev-override-confirm-title">
            Load <strong>{requested?.remote}</strong> in this tab from <code>{activation.origin}</code>? Code
            from <code>{activation.origin}</code> will run here with your session, instead of the release the
            registry lists. Confirm only if this is your own dev server.{' '}
            <Button variant="secondary" onClick={() => setActivation({ status: 'checking' })}>
              Load from {activation.origin}
            </Button>{' '}
            <Button variant="secondary" onClick={cancel}>
              Cancel
            </Button>
          </p>
        </div>
      )}
      {activation.status === 'checking' && (
        <p role="status">Checking the dev override of {requested?.remote}…</p>
      )}
      {activation.status === 'refused' && (
        <p role="alert" data-testid="dev-override-refused">
          Dev override of {requested?.remote} refused: {activation.reason} The active release is loaded.
        </p>
      )}
      {decided.active.map((override) => (
        <p key={override.remote} role="status" data-testid={`dev-override-${override.remote}`}>
          Dev override: <strong>{override.remote}</strong> is loaded from <code>{override.url}</code> in this
          tab only.{' '}
          <Button variant="secondary" onClick={() => void reset()}>
            Reset to the active release
          </Button>
        </p>
      ))}
      {decided.ignored.map(({ override, reason }, index) => (
        <p key={index} role="status" data-testid="dev-override-ignored">
          A dev override of <strong>{override.remote}</strong> stored in this tab is ignored:{' '}
          {sentence(reason)} The active release is loaded.{' '}
          <Button variant="secondary" onClick={() => forget(override)}>
            Forget it
          </Button>
        </p>
      ))}
    </div>
  );
}

import { ApiProblemError, type ApiClient, type RemoteDescriptor } from '@atrium/sdk';
import { useEffect, useState } from 'react';
import { createRoot } from 'react-dom/client';
import {
  activeDevOverrides,
  clearDevOverrides,
  devOverrideConfig,
  devOverrideProblem,
  requestedDevOverride,
  storeDevOverride,
} from './dev-override';
import { DEV_OVERRIDE_PARAM } from './dev-override-keys';

import { applyDevOverrides } from './dev-override';

export interface DevOverridePanelProps {
  /** `devOverrides` of the run-time config, as served. */
  readonly config: unknown;
  /** The signed-in person's realm roles. */
  readonly roles: readonly string[];
  readonly api: ApiClient;
}

/**
 * The shell's one way into this chunk, before any remote loads: the registry's list with the active overrides
 * applied (applyDevOverrides), and the banner, in a root of its own above the shell so that the shell's first
 * bundle carries none of it.
 */
export function startDevOverrides(
  roles: readonly string[],
  config: unknown,
  api: ApiClient,
  remotes: readonly RemoteDescriptor[],
): Promise<RemoteDescriptor[]> {
  const host = document.createElement('div');
  document.body.prepend(host);
  createRoot(host).render(<DevOverridePanel config={config} roles={roles} api={api} />);
  return applyDevOverrides(roles, config, remotes);
}

type Activation =
  | { readonly status: 'none' }
  | { readonly status: 'checking' }
  | { readonly status: 'refused'; readonly reason: string };

/** This page's address without `?atrium-dev-override=…`. */
function addressWithoutRequest(): string {
  const url = new URL(window.location.href);
  url.searchParams.delete(DEV_OVERRIDE_PARAM);
  return `${url.pathname}${url.search}${url.hash}`;
}

/**
 * The dev-override banner (which remote runs from which dev server, with a one-click reset) and the activation
 * of a requested override: checked here (role, allowed origin), then allowed and audited by the API, then kept
 * for this tab's session and applied by reloading the page. A refusal is shown and nothing of the dev server runs.
 */
export function DevOverridePanel({ config: rawConfig, roles, api }: DevOverridePanelProps) {
  // Fixed for the page's life: activating or resetting reloads it.
  const [{ requested, active }] = useState(() => {
    const config = devOverrideConfig(rawConfig);
    return {
      requested: requestedDevOverride(window.location.search),
      active: activeDevOverrides(roles, config),
    };
  });
  const [activation, setActivation] = useState<Activation>(() => {
    if (requested === null) return { status: 'none' };
    const problem = devOverrideProblem(requested, roles, devOverrideConfig(rawConfig));
    return problem === undefined ? { status: 'checking' } : { status: 'refused', reason: problem };
  });

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
              ? (error.detail ?? error.title)
              : 'the API could not be asked; try again',
        }),
    );
  }, [checking, requested, api]);

  const reset = () => {
    clearDevOverrides();
    window.location.replace(addressWithoutRequest());
  };

  return (
    <div className="dev-override" data-testid="dev-override">
      {activation.status === 'checking' && (
        <p role="status">Checking the dev override of {requested?.remote}…</p>
      )}
      {activation.status === 'refused' && (
        <p role="alert" data-testid="dev-override-refused">
          Dev override of {requested?.remote} refused: {activation.reason}. The active release is loaded.
        </p>
      )}
      {active.map((override) => (
        <p key={override.remote} role="status" data-testid={`dev-override-${override.remote}`}>
          Dev override: <strong>{override.remote}</strong> is loaded from <code>{override.url}</code> in this
          tab only.{' '}
          <button type="button" className="button" onClick={reset}>
            Reset to the active release
          </button>
        </p>
      ))}
    </div>
  );
}

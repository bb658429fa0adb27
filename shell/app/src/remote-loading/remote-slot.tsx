import { AtriumContext, AtriumProvider, type FeatureProps, type RemoteDescriptor } from '@atrium/sdk';
import {
  Component,
  useContext,
  useEffect,
  useMemo,
  useState,
  type ComponentType,
  type ErrorInfo,
  type ReactNode,
} from 'react';
import { clientForRemotes } from '../auth/api-authorization';
import { StatusPanel } from '../layout/status-panel';
import { markRemote, startFieldTelemetryLater } from './field-telemetry-entry';
import type { FeatureLoader } from './loader/remote-loader';
import type { RemoteLoadError } from './remote-load-error';

type SlotState =
  | { readonly status: 'loading' }
  | { readonly status: 'ready'; readonly Feature: ComponentType<FeatureProps> }
  | { readonly status: 'failed'; readonly error: Error };

export interface RemoteSlotProps {
  readonly remote: RemoteDescriptor;
  readonly timeoutMs: number;
  /** Loads the remote's Feature: the page's remote loader's, or a test's. */
  readonly load: FeatureLoader;
}

/**
 * Loads a remote's Feature and renders it inside an error boundary, so neither a failed download nor a
 * crash inside the remote takes the shell down. Both failures offer Retry.
 */
export function RemoteSlot({ remote, timeoutMs, load }: RemoteSlotProps) {
  const context = useContext(AtriumContext);
  // The shell's API client (memoised: stable across renders, unlike the rest of the context).
  const api = context?.api;
  // What the remote gets: the same context, with the client that refuses the shell's own routes.
  const remoteContext = useMemo(
    () => context && { ...context, api: clientForRemotes(context.api) },
    [context],
  );
  const [attempt, setAttempt] = useState(0);
  const [state, setState] = useState<SlotState>({ status: 'loading' });

  useEffect(() => {
    let current = true;
    markRemote(remote, 'load');
    load(remote, { retry: attempt > 0, timeoutMs })
      .then(
        (module) => {
          markRemote(remote, 'loaded');
          if (current) setState({ status: 'ready', Feature: module.Feature });
        },
        (error: unknown) => {
          // The reporter counts a failure without a reason (not a RemoteLoadError) as a download failure.
          markRemote(remote, 'failed', (error as Partial<RemoteLoadError>).reason);
          if (current) setState({ status: 'failed', error: toError(error) });
        },
      )
      // Field telemetry is a chunk of its own, fetched once a remote has loaded or failed: never before.
      .finally(() => startFieldTelemetryLater(api));
    return () => {
      current = false;
    };
  }, [remote, attempt, load, timeoutMs, api]);

  useEffect(() => {
    // Also read by the browser journeys: time from the shell being ready to this remote being on screen.
    if (state.status === 'ready') markRemote(remote, 'rendered');
  }, [state.status, remote]);

  const retry = () => {
    setState({ status: 'loading' });
    setAttempt((value) => value + 1);
  };

  if (state.status === 'loading') {
    return <StatusPanel kind="loading" title={`Loading ${remote.title}…`} />;
  }
  if (state.status === 'failed') {
    return <RemoteFailure remote={remote} error={state.error} onRetry={retry} />;
  }
  const { Feature } = state;
  return (
    <div className="remote-slot" data-remote={remote.name} data-remote-version={remote.version}>
      <RemoteErrorBoundary key={attempt} remote={remote} onRetry={retry}>
        {remoteContext ? (
          <AtriumProvider value={remoteContext}>
            <Feature basePath={remote.path} />
          </AtriumProvider>
        ) : (
          <Feature basePath={remote.path} />
        )}
      </RemoteErrorBoundary>
    </div>
  );
}

interface BoundaryProps {
  readonly remote: RemoteDescriptor;
  readonly onRetry: () => void;
  readonly children: ReactNode;
}

export class RemoteErrorBoundary extends Component<BoundaryProps, { error: Error | null }> {
  override state: { error: Error | null } = { error: null };

  static getDerivedStateFromError(error: unknown) {
    return { error: toError(error) };
  }

  override componentDidCatch(error: unknown, info: ErrorInfo) {
    markRemote(this.props.remote, 'failed', 'render');
    console.error(`Remote "${this.props.remote.name}" crashed`, error, info.componentStack);
  }

  override render() {
    if (this.state.error !== null) {
      return (
        <RemoteFailure remote={this.props.remote} error={this.state.error} onRetry={this.props.onRetry} />
      );
    }
    return this.props.children;
  }
}

function RemoteFailure({
  remote,
  error,
  onRetry,
}: {
  remote: RemoteDescriptor;
  error: Error;
  onRetry: () => void;
}) {
  // A release the registry pulled will not load again: the page's reload takes the version served now.
  const withdrawn = (error as Partial<RemoteLoadError>).reason === 'withdrawn';
  return (
    <StatusPanel
      kind="error"
      title={`${remote.title} is unavailable`}
      detail={error.message}
      action={
        withdrawn
          ? { label: 'Reload', onClick: () => window.location.reload() }
          : { label: 'Retry', onClick: onRetry }
      }
    />
  );
}

function toError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}

import type { FeatureProps, RemoteDescriptor } from '@atrium/sdk';
import { Component, useEffect, useState, type ComponentType, type ErrorInfo, type ReactNode } from 'react';
import { StatusPanel } from '../layout/status-panel';
import { loadFeature, type FeatureLoader } from './federation';

type SlotState =
  | { readonly status: 'loading' }
  | { readonly status: 'ready'; readonly Feature: ComponentType<FeatureProps> }
  | { readonly status: 'failed'; readonly error: Error };

export interface RemoteSlotProps {
  readonly remote: RemoteDescriptor;
  readonly timeoutMs: number;
  /** Injected by tests; the real loader goes through Module Federation. */
  readonly load?: FeatureLoader;
}

/**
 * Loads a remote's Feature and renders it inside an error boundary, so neither a failed download nor a
 * crash inside the remote takes the shell down. Both failures offer Retry.
 */
export function RemoteSlot({ remote, timeoutMs, load = loadFeature }: RemoteSlotProps) {
  const [attempt, setAttempt] = useState(0);
  const [state, setState] = useState<SlotState>({ status: 'loading' });

  useEffect(() => {
    let current = true;
    load(remote, { retry: attempt > 0, timeoutMs }).then(
      (module) => current && setState({ status: 'ready', Feature: module.Feature }),
      (error: unknown) => current && setState({ status: 'failed', error: toError(error) }),
    );
    return () => {
      current = false;
    };
  }, [remote, attempt, load, timeoutMs]);

  useEffect(() => {
    // Read by the browser journeys: time from the shell being ready to this remote being on screen.
    if (state.status === 'ready') performance.mark(`atrium:remote-rendered:${remote.name}`);
  }, [state.status, remote.name]);

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
        <Feature basePath={remote.path} />
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
  return (
    <StatusPanel
      kind="error"
      title={`${remote.title} is unavailable`}
      detail={error.message}
      action={{ label: 'Retry', onClick: onRetry }}
    />
  );
}

function toError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}

import { StatusPanel } from './status-panel';

/** The list of remotes did not load: why, and Retry. Shown at home and at any path the list would decide. */
export function RemotesListFailure({ error, onRetry }: { error: unknown; onRetry: () => void }) {
  return (
    <StatusPanel
      kind="error"
      title="The list of features could not be loaded"
      detail={error instanceof Error ? error.message : String(error)}
      action={{ label: 'Retry', onClick: onRetry }}
    />
  );
}

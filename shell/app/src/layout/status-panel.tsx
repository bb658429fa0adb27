import { Alert } from '@atrium/sdk/ui';

export interface StatusPanelProps {
  readonly kind: 'loading' | 'error' | 'info';
  readonly title: string;
  readonly detail?: string | undefined;
  readonly items?: readonly string[];
  readonly action?: { readonly label: string; readonly onClick: () => void } | undefined;
}

/**
 * The one way the shell shows a whole view's loading, error or informational state, so no step ever leaves a
 * blank page: the sdk's Alert as a panel. Errors are announced (role="alert") and take focus so keyboard users
 * land next to the action.
 */
export function StatusPanel({ kind, title, detail, items, action }: StatusPanelProps) {
  return (
    <Alert
      variant="panel"
      tone={kind}
      title={title}
      autoFocus={kind === 'error'}
      onRetry={action?.onClick}
      retryLabel={action?.label}
    >
      {detail !== undefined && <p>{detail}</p>}
      {items !== undefined && items.length > 0 && (
        <ul>
          {items.map((item) => (
            <li key={item}>{item}</li>
          ))}
        </ul>
      )}
    </Alert>
  );
}

import { useEffect, useRef } from 'react';

export interface StatusPanelProps {
  readonly kind: 'loading' | 'error' | 'info';
  readonly title: string;
  readonly detail?: string | undefined;
  readonly items?: readonly string[];
  readonly action?: { readonly label: string; readonly onClick: () => void } | undefined;
}

/**
 * The one way the shell shows a loading, error or informational state, so no step ever leaves a blank
 * page. Errors are announced (role="alert") and take focus so keyboard users land on the Retry button.
 */
export function StatusPanel({ kind, title, detail, items, action }: StatusPanelProps) {
  const headingRef = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    if (kind === 'error') headingRef.current?.focus();
  }, [kind, title]);

  return (
    <section
      className={`status-panel status-panel--${kind}`}
      role={kind === 'error' ? 'alert' : 'status'}
      aria-busy={kind === 'loading'}
    >
      {kind === 'loading' && <span className="spinner" aria-hidden="true" />}
      <h2 ref={headingRef} tabIndex={-1}>
        {title}
      </h2>
      {detail !== undefined && <p>{detail}</p>}
      {items !== undefined && items.length > 0 && (
        <ul>
          {items.map((item) => (
            <li key={item}>{item}</li>
          ))}
        </ul>
      )}
      {action !== undefined && (
        <button type="button" className="button" onClick={action.onClick}>
          {action.label}
        </button>
      )}
    </section>
  );
}

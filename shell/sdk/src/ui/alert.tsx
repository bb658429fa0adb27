import { useEffect, useRef, type ReactNode } from 'react';
import { Button } from './button';
import './ui.css';

/** Props of {@link Alert}. */
export interface AlertProps {
  /**
   * `error` (the default) is announced at once (`role="alert"`); `success`, `info` and `loading` politely
   * (`role="status"`), `loading` with a spinner and `aria-busy`.
   */
  readonly tone?: 'error' | 'success' | 'info' | 'loading';
  /** A short heading; the children say the rest. */
  readonly title?: ReactNode;
  readonly children?: ReactNode;
  /** Shows a Retry button (labelled {@link retryLabel}) that calls this. */
  readonly onRetry?: (() => void) | undefined;
  readonly retryLabel?: string;
  /**
   * `inline` (the default) sits in the flow of a page; `panel` is a centred card standing for a whole view
   * (the shell's "Loading…" and failure screens), whose title is then the view's heading (`<h2>`).
   */
  readonly variant?: 'inline' | 'panel';
  /** Moves keyboard focus to the alert when it appears (a whole view that failed), so Retry is one Tab away. */
  readonly autoFocus?: boolean;
  /** `data-*` attributes, e.g. `data-testid`, set on the alert's element. */
  readonly [data: `data-${string}`]: string | undefined;
}

/**
 * A message about the state of things: an error (with Retry), a confirmation, a note or a loading state. A
 * `status` Alert may stay mounted empty, so that the message put into it later is announced.
 */
export function Alert({
  tone = 'error',
  title,
  children,
  onRetry,
  retryLabel = 'Retry',
  variant = 'inline',
  autoFocus = false,
  ...data
}: AlertProps) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (autoFocus) ref.current?.focus();
  }, [autoFocus, title]);
  const Title = variant === 'panel' ? 'h2' : 'p';
  const empty = title === undefined && (children === undefined || children === '') && onRetry === undefined;
  return (
    <div
      {...data}
      ref={ref}
      role={tone === 'error' ? 'alert' : 'status'}
      aria-busy={tone === 'loading' || undefined}
      tabIndex={autoFocus ? -1 : undefined}
      className={`atrium-alert atrium-alert--${tone} atrium-alert--${variant}${empty ? ' atrium-alert--empty' : ''}`}
    >
      {tone === 'loading' && <span className="atrium-spinner" aria-hidden="true" />}
      {title !== undefined && <Title className="atrium-alert__title">{title}</Title>}
      {typeof children === 'string' ? <p className="atrium-alert__text">{children}</p> : children}
      {onRetry !== undefined && <Button onClick={onRetry}>{retryLabel}</Button>}
    </div>
  );
}

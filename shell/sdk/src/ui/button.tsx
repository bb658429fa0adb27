import type { ButtonHTMLAttributes, MouseEvent } from 'react';
import './ui.css';

/** Props of {@link Button}: every `<button>` attribute, plus its look and busy state. */
export interface ButtonProps extends ButtonHTMLAttributes<HTMLButtonElement> {
  /**
   * `primary` (the default) for the main action of a view, `secondary` for the others, `danger` for one that
   * destroys something (deleting an account): the theme's danger colour with text that keeps AA contrast.
   */
  readonly variant?: 'primary' | 'secondary' | 'danger';
  /**
   * The action it started is under way: the button says so (`aria-busy`, {@link busyLabel}) and ignores
   * clicks, but keeps keyboard focus, so a screen reader stays where the person was.
   */
  readonly busy?: boolean;
  /** The label while busy, e.g. `Saving…`; the usual label when absent. */
  readonly busyLabel?: string;
}

/** The shell's button. `type` defaults to `button`; pass `type="submit"` for a form's main action. */
export function Button({
  variant = 'primary',
  busy = false,
  busyLabel,
  type = 'button',
  className,
  onClick,
  children,
  ...button
}: ButtonProps) {
  const ignoreWhileBusy = (event: MouseEvent<HTMLButtonElement>) => {
    if (busy) {
      event.preventDefault();
      return;
    }
    onClick?.(event);
  };
  return (
    <button
      {...button}
      type={type}
      className={['atrium-button', `atrium-button--${variant}`, className].filter(Boolean).join(' ')}
      aria-busy={busy || undefined}
      aria-disabled={busy || undefined}
      onClick={ignoreWhileBusy}
    >
      {busy && busyLabel !== undefined ? busyLabel : children}
    </button>
  );
}

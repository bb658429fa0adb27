import { Button, useReturnFocus } from '@atrium/sdk/ui';
import { useEffect, useId, useRef, type ReactNode } from 'react';

export interface ConfirmDialogProps {
  readonly title: string;
  readonly message: string;
  readonly confirmLabel: string;
  /** Said on the confirm button while the action runs, e.g. `Activating…`. */
  readonly busyLabel: string;
  readonly busy: boolean;
  /** The confirm button stays disabled while this is false (e.g. a required reason is still empty). */
  readonly canConfirm?: boolean;
  readonly onConfirm: () => void;
  readonly onCancel: () => void;
  /** What the person fills in before confirming, shown under the message. */
  readonly children?: ReactNode;
}

/**
 * A modal confirmation on the native <dialog>: it opens with focus on the first field to fill in (or on the
 * confirm button when there is none), traps focus, closes on Escape and returns focus to the button that opened
 * it (useReturnFocus: the browser does not when React removes an open dialog), without a dialog library in the
 * bundle.
 */
export function ConfirmDialog({
  title,
  message,
  confirmLabel,
  busyLabel,
  busy,
  canConfirm = true,
  onConfirm,
  onCancel,
  children,
}: ConfirmDialogProps) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useReturnFocus();
  useEffect(() => {
    const dialog = ref.current;
    if (dialog !== null && !dialog.open && typeof dialog.showModal === 'function') dialog.showModal();
    // After showModal, which focuses the dialog's first control (Cancel): React's autoFocus ran before the
    // dialog was open, when nothing in it could take focus.
    (
      dialog?.querySelector<HTMLElement>('input, select, textarea') ??
      dialog?.querySelector<HTMLElement>('[data-confirm]')
    )?.focus();
    return () => dialog?.close();
  }, []);
  return (
    <dialog
      ref={ref}
      className="atrium-admin__dialog"
      aria-labelledby={titleId}
      open={typeof HTMLDialogElement.prototype.showModal === 'function' ? undefined : true}
      onCancel={(event) => {
        event.preventDefault();
        if (!busy) onCancel();
      }}
    >
      <h2 id={titleId}>{title}</h2>
      <p>{message}</p>
      {children}
      <div className="atrium-admin__actions">
        <Button variant="secondary" onClick={onCancel} disabled={busy}>
          Cancel
        </Button>
        <Button onClick={onConfirm} busy={busy} busyLabel={busyLabel} disabled={!canConfirm} data-confirm="">
          {confirmLabel}
        </Button>
      </div>
    </dialog>
  );
}

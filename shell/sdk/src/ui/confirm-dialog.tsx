import { useEffect, useId, useRef, type ReactNode } from 'react';
import { Button } from './button';
import { useReturnFocus } from './focus';
import './ui.css';

/** Props of {@link ConfirmDialog}. */
export interface ConfirmDialogProps {
  readonly title: string;
  readonly message: ReactNode;
  readonly confirmLabel: string;
  /** Said on the confirm button while the action runs, e.g. `Activating…`. */
  readonly busyLabel: string;
  readonly busy: boolean;
  /** A confirmation that destroys or takes back something: its button is the danger one. */
  readonly danger?: boolean;
  /** The confirm button stays disabled while this is false (e.g. a required reason is still empty). */
  readonly canConfirm?: boolean;
  readonly onConfirm: () => void;
  readonly onCancel: () => void;
  /** What the person fills in before confirming, shown under the message. */
  readonly children?: ReactNode;
}

/**
 * A modal confirmation on the native `<dialog>`: the browser keeps focus inside it; Escape cancels (not while
 * the action runs). It opens with focus on the first field of `children` (or on the confirm button when there is
 * none) and gives focus back to the control that opened it when it closes (useReturnFocus: the browser does not
 * when React removes an open dialog).
 */
export function ConfirmDialog({
  title,
  message,
  confirmLabel,
  busyLabel,
  busy,
  danger = false,
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
      className="atrium-dialog"
      aria-labelledby={titleId}
      open={typeof HTMLDialogElement.prototype.showModal === 'function' ? undefined : true}
      onCancel={(event) => {
        event.preventDefault();
        if (!busy) onCancel();
      }}
    >
      <h2 id={titleId} className="atrium-dialog__title">
        {title}
      </h2>
      <p>{message}</p>
      {children}
      <div className="atrium-dialog__actions">
        <Button variant="secondary" onClick={onCancel} disabled={busy}>
          Cancel
        </Button>
        <Button
          variant={danger ? 'danger' : 'primary'}
          onClick={onConfirm}
          busy={busy}
          busyLabel={busyLabel}
          disabled={!canConfirm}
          data-confirm=""
        >
          {confirmLabel}
        </Button>
      </div>
    </dialog>
  );
}

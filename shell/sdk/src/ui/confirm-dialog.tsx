import { useEffect, useId, useRef, type ReactNode } from 'react';
import { Button } from './button';
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
 * A modal confirmation on the native `<dialog>`: the browser keeps focus inside it and puts focus back on the
 * control that opened it when it closes; Escape cancels (not while the action runs). Focus starts on the
 * confirm button, unless `children` hold a field that takes it (`autoFocus`).
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
  useEffect(() => {
    const dialog = ref.current;
    if (dialog !== null && !dialog.open && typeof dialog.showModal === 'function') dialog.showModal();
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
          autoFocus={children === undefined}
        >
          {confirmLabel}
        </Button>
      </div>
    </dialog>
  );
}

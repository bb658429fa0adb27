import { useEffect, useId, useRef } from 'react';

export interface ConfirmDialogProps {
  readonly title: string;
  readonly message: string;
  readonly confirmLabel: string;
  readonly busy: boolean;
  readonly onConfirm: () => void;
  readonly onCancel: () => void;
}

/**
 * A modal confirmation on the native <dialog>: it traps focus, closes on Escape and returns focus to the
 * button that opened it, without a dialog library in the bundle.
 */
export function ConfirmDialog({
  title,
  message,
  confirmLabel,
  busy,
  onConfirm,
  onCancel,
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
      <div className="atrium-admin__actions">
        <button
          type="button"
          className="atrium-admin__button atrium-admin__button--secondary"
          onClick={onCancel}
          disabled={busy}
        >
          Cancel
        </button>
        <button type="button" className="atrium-admin__button" onClick={onConfirm} disabled={busy} autoFocus>
          {busy ? 'Activating…' : confirmLabel}
        </button>
      </div>
    </dialog>
  );
}

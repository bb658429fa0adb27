import type { ReactNode } from 'react';
import './ui.css';

/** Props of {@link FormRow}. */
export interface FormRowProps {
  /** Fields (each with its label above its input) and, last, the button that acts on them. */
  readonly children: ReactNode;
}

/**
 * Lays fields side by side, each label above its input, with the button aligned to the inputs; on a narrow
 * window the fields wrap onto further lines rather than widen the page.
 */
export function FormRow({ children }: FormRowProps) {
  return <div className="atrium-form-row">{children}</div>;
}

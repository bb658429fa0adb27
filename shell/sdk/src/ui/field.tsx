import { useId, type InputHTMLAttributes, type ReactNode, type SelectHTMLAttributes } from 'react';
import './ui.css';

interface Described {
  /** Help shown under the control and read with it. */
  readonly hint?: ReactNode;
  /** The problem with the value (e.g. the API's message for this field); marks the control invalid. */
  readonly error?: string | undefined;
}

/** Props of {@link Field}: every `<input>` attribute except `id`, plus its label, hint and error. */
export interface FieldProps extends Omit<InputHTMLAttributes<HTMLInputElement>, 'id'>, Described {
  readonly label: ReactNode;
}

/**
 * A labelled input with its hint and inline error. The error sets `aria-invalid` and, like the hint, is tied
 * to the input with `aria-describedby`, so a screen reader reads it with the field. The error carries
 * `data-testid="error-<name>"`.
 */
export function Field({ label, hint, error, name, className, ...input }: FieldProps) {
  const id = useId();
  const messages = useMessages(id, hint, error, name);
  return (
    <div className={['atrium-field', className].filter(Boolean).join(' ')}>
      <label htmlFor={id} className="atrium-field__label">
        {label}
      </label>
      <input {...input} id={id} name={name} className="atrium-field__input" {...messages.described} />
      {messages.nodes}
    </div>
  );
}

/** Props of {@link SelectField}: every `<select>` attribute except `id`, plus its label, hint and error. */
export interface SelectFieldProps
  extends Omit<SelectHTMLAttributes<HTMLSelectElement>, 'id' | 'children'>, Described {
  readonly label: ReactNode;
  /** The options: `value` is sent, `label` shown. */
  readonly options: readonly { readonly value: string; readonly label: ReactNode }[];
}

/** A labelled drop-down list, with hint and error tied to it as in {@link Field}. */
export function SelectField({ label, hint, error, name, options, className, ...select }: SelectFieldProps) {
  const id = useId();
  const messages = useMessages(id, hint, error, name);
  return (
    <div className={['atrium-field', className].filter(Boolean).join(' ')}>
      <label htmlFor={id} className="atrium-field__label">
        {label}
      </label>
      <select {...select} id={id} name={name} className="atrium-field__input" {...messages.described}>
        {options.map((option) => (
          <option key={option.value} value={option.value}>
            {option.label}
          </option>
        ))}
      </select>
      {messages.nodes}
    </div>
  );
}

/** One option of a {@link ChoiceField}. */
export interface Choice<V extends string> {
  readonly value: V;
  readonly label: ReactNode;
}

/** Props of {@link ChoiceField}. */
export interface ChoiceFieldProps<V extends string> extends Described {
  /** The group's name, read as the group's label (`<legend>`). */
  readonly legend: ReactNode;
  /** The radio buttons' `name`. */
  readonly name: string;
  readonly options: readonly Choice<V>[];
  readonly value: V;
  readonly onChange: (value: V) => void;
}

/**
 * One choice among a few, as radio buttons in a `<fieldset>` (a group named by its legend; arrow keys move
 * between the options). Hint and error are tied to the group as in {@link Field}.
 */
export function ChoiceField<V extends string>({
  legend,
  name,
  options,
  value,
  onChange,
  hint,
  error,
}: ChoiceFieldProps<V>) {
  const id = useId();
  const messages = useMessages(id, hint, error, name);
  return (
    <fieldset className="atrium-field atrium-field--choice" {...messages.described}>
      <legend className="atrium-field__label">{legend}</legend>
      <div className="atrium-field__choices">
        {options.map((option) => (
          <label key={option.value} className="atrium-field__choice">
            <input
              type="radio"
              name={name}
              value={option.value}
              checked={value === option.value}
              onChange={() => onChange(option.value)}
            />
            {option.label}
          </label>
        ))}
      </div>
      {messages.nodes}
    </fieldset>
  );
}

function useMessages(id: string, hint: ReactNode, error: string | undefined, name: string | undefined) {
  const hintId = `${id}-hint`;
  const errorId = `${id}-error`;
  const hasHint = hint !== undefined && hint !== null && hint !== '';
  const hasError = error !== undefined && error !== '';
  const describedBy = [hasHint ? hintId : '', hasError ? errorId : ''].filter(Boolean).join(' ');
  return {
    described: {
      'aria-invalid': hasError || undefined,
      'aria-describedby': describedBy === '' ? undefined : describedBy,
    },
    nodes: (
      <>
        {hasHint && (
          <span id={hintId} className="atrium-field__hint">
            {hint}
          </span>
        )}
        {hasError && (
          <span
            id={errorId}
            className="atrium-field__error"
            data-testid={name === undefined ? undefined : `error-${name}`}
          >
            {error}
          </span>
        )}
      </>
    ),
  };
}

import {
  ApiProblemError,
  useApi,
  type CreateRemoteRequest,
  type RemoteDetail,
  type UpdateRemoteRequest,
} from '@atrium/sdk';
import { useId, useState, type FormEvent } from 'react';
import { describeError } from './describe-error';

// The form's fields are the body's (`CreateRemote` of the API's document).
type Field = keyof CreateRemoteRequest;
type Values = Record<Field, string>;
type FieldErrors = Partial<Record<Field, string>>;

const FIELDS: readonly Field[] = ['name', 'title', 'path', 'navOrder', 'requiredRoles', 'owner'];

/** The feature teams' deployer: the usual owner of a new remote. */
const DEFAULT_OWNER = 'atrium-deployer';

export interface RemoteSettingsFormProps {
  /** The remote to edit; without one the form creates a remote. */
  readonly remote?: RemoteDetail;
  /** Called after the API accepted the change, with a sentence saying what happened. */
  readonly onSaved: (message: string) => void;
  readonly onCancel: () => void;
}

/**
 * Creates a remote, or changes who may see it, where it appears and which deployer owns it: the settings
 * only an administrator sets. The API's field errors (problem+json `errors`) are shown beside each field.
 */
export function RemoteSettingsForm({ remote, onSaved, onCancel }: RemoteSettingsFormProps) {
  const api = useApi();
  const id = useId();
  const initial = remote ? valuesOf(remote) : emptyValues();
  const [values, setValues] = useState<Values>(initial);
  const [fieldErrors, setFieldErrors] = useState<FieldErrors>({});
  const [formError, setFormError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setFieldErrors({});
    setFormError(null);
    if (remote) {
      const changes = changedSettings(initial, values);
      if (Object.keys(changes).length === 0) {
        onSaved(`Nothing changed in ${remote.title}.`);
        return;
      }
    }
    setBusy(true);
    try {
      if (remote) {
        const saved = await api.patch<RemoteDetail>(
          `/api/remotes/${encodeURIComponent(remote.name)}`,
          changedSettings(initial, values),
        );
        onSaved(`${saved.title} saved. People see the change at their next load.`);
      } else {
        const created = await api.post<RemoteDetail>('/api/remotes', newRemote(values));
        onSaved(
          `${created.title} (${created.name}) created. Its owner ${created.owner} can now publish its versions.`,
        );
      }
    } catch (error) {
      const inline = fieldErrorsOf(error);
      if (Object.keys(inline).length > 0) setFieldErrors(inline);
      else
        setFormError(
          describeError(remote ? `${remote.title} was not saved` : 'The remote was not created', error),
        );
    } finally {
      setBusy(false);
    }
  };

  const input = (
    field: Field,
    label: string,
    props: { hint?: string; type?: string; readOnly?: boolean } = {},
  ) => {
    const inputId = `${id}-${field}`;
    const error = fieldErrors[field];
    const described = [props.hint ? `${inputId}-hint` : '', error ? `${inputId}-error` : ''].filter(Boolean);
    return (
      <div className="atrium-admin__field">
        <label htmlFor={inputId}>{label}</label>
        <input
          id={inputId}
          name={field}
          type={props.type ?? 'text'}
          value={values[field]}
          readOnly={props.readOnly}
          aria-invalid={error ? true : undefined}
          aria-describedby={described.length > 0 ? described.join(' ') : undefined}
          onChange={(event) => setValues((current) => ({ ...current, [field]: event.target.value }))}
        />
        {props.hint && (
          <span id={`${inputId}-hint`} className="atrium-admin__muted">
            {props.hint}
          </span>
        )}
        {error && (
          <span id={`${inputId}-error`} className="atrium-admin__error" data-testid={`error-${field}`}>
            {error}
          </span>
        )}
      </div>
    );
  };

  const heading = remote ? `Settings of ${remote.title}` : 'New remote';
  return (
    <form
      className="atrium-admin__card atrium-admin__form"
      aria-label={heading}
      noValidate
      onSubmit={(event) => void submit(event)}
    >
      <h2>{heading}</h2>
      {input('name', 'Name', {
        readOnly: remote !== undefined,
        hint: remote ? 'A remote keeps its name.' : 'Module Federation name: lowercase letters, digits, -.',
      })}
      {input('title', 'Title')}
      {input('path', 'Path', { hint: 'Route in the shell, e.g. /time-off.' })}
      {input('navOrder', 'Order', { type: 'number', hint: 'Position in the navigation; lower comes first.' })}
      {input('requiredRoles', 'Required roles', {
        hint: 'Comma-separated; empty means every signed-in person.',
      })}
      {input('owner', 'Owner', {
        hint: 'Client id of the deployer that publishes and activates its versions.',
      })}
      {formError && (
        <p role="alert" className="atrium-admin__error">
          {formError}
        </p>
      )}
      <div className="atrium-admin__actions">
        <button
          type="button"
          className="atrium-admin__button atrium-admin__button--secondary"
          onClick={onCancel}
        >
          Cancel
        </button>
        <button type="submit" className="atrium-admin__button" disabled={busy}>
          {remote ? 'Save settings' : 'Create remote'}
        </button>
      </div>
    </form>
  );
}

function emptyValues(): Values {
  return { name: '', title: '', path: '/', navOrder: '', requiredRoles: '', owner: DEFAULT_OWNER };
}

function valuesOf(remote: RemoteDetail): Values {
  return {
    name: remote.name,
    title: remote.title,
    path: remote.path,
    navOrder: String(remote.navOrder),
    requiredRoles: remote.requiredRoles.join(', '),
    owner: remote.owner,
  };
}

function roles(text: string): string[] {
  return text
    .split(/[\s,]+/)
    .map((role) => role.trim())
    .filter((role) => role !== '');
}

// An empty order is left to the API's default; anything else goes as typed, and the API says what is wrong.
function order(text: string): number | undefined {
  return text.trim() === '' ? undefined : Number(text);
}

function newRemote(values: Values): CreateRemoteRequest {
  const navOrder = order(values.navOrder);
  return {
    name: values.name.trim(),
    title: values.title,
    path: values.path.trim(),
    ...(navOrder === undefined ? {} : { navOrder }),
    requiredRoles: roles(values.requiredRoles),
    owner: values.owner.trim(),
  };
}

/** Only what differs from the remote as loaded, so the audit log records what the administrator changed. */
function changedSettings(initial: Values, values: Values): UpdateRemoteRequest {
  const changes: { -readonly [K in keyof UpdateRemoteRequest]: UpdateRemoteRequest[K] } = {};
  if (values.title !== initial.title) changes.title = values.title;
  if (values.path.trim() !== initial.path) changes.path = values.path.trim();
  if (values.navOrder.trim() !== initial.navOrder) changes.navOrder = order(values.navOrder) ?? Number.NaN;
  if (roles(values.requiredRoles).join(',') !== roles(initial.requiredRoles).join(',')) {
    changes.requiredRoles = roles(values.requiredRoles);
  }
  if (values.owner.trim() !== initial.owner) changes.owner = values.owner.trim();
  return changes;
}

/**
 * The API's verdict per form field: its validation errors (`requiredRoles.1` belongs to Required roles), and
 * the conflicts that are about one field (the name or the path is taken).
 */
function fieldErrorsOf(error: unknown): FieldErrors {
  if (!(error instanceof ApiProblemError)) return {};
  if (error.code === 'remote_exists') return { name: error.detail ?? error.title };
  if (error.code === 'path_in_use') return { path: error.detail ?? error.title };
  const errors: FieldErrors = {};
  for (const { field, message } of error.errors ?? []) {
    const name = field.split('.')[0] as Field;
    if (FIELDS.includes(name) && errors[name] === undefined) errors[name] = message;
  }
  return errors;
}

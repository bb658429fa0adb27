import {
  ApiProblemError,
  useApi,
  type CreateRemoteRequest,
  type RemoteDetail,
  type UpdateRemoteRequest,
} from '@atrium/sdk';
import { Alert, Button, Card, describeApiError, Field, useAsyncAction } from '@atrium/sdk/ui';
import { useId, useState, type FormEvent } from 'react';

// The form's fields are the body's (`CreateRemote` of the API's document).
type FieldName = keyof CreateRemoteRequest;
type Values = Record<FieldName, string>;
type FieldErrors = Partial<Record<FieldName, string>>;

const FIELDS: readonly FieldName[] = ['name', 'title', 'path', 'navOrder', 'requiredRoles', 'owner'];

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
  const initial = remote ? valuesOf(remote) : emptyValues();
  const [values, setValues] = useState<Values>(initial);
  const save = useAsyncAction();

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const changes = changedSettings(initial, values);
    if (remote && Object.keys(changes).length === 0) {
      onSaved(`Nothing changed in ${remote.title}.`);
      return;
    }
    const outcome = await save.run(async () =>
      remote
        ? `${(await api.patch<RemoteDetail>(`/api/remotes/${encodeURIComponent(remote.name)}`, changes)).title} saved. People see the change at their next load.`
        : createdMessage(await api.post<RemoteDetail>('/api/remotes', newRemote(values))),
    );
    if (outcome.ok) onSaved(outcome.value);
  };

  const fieldErrors = save.status === 'failed' ? fieldErrorsOf(save.error) : {};
  const formError =
    save.status === 'failed' && Object.keys(fieldErrors).length === 0
      ? describeApiError(save.error, remote ? `${remote.title} was not saved` : 'The remote was not created')
      : undefined;
  const field = (
    name: FieldName,
    label: string,
    props: { hint?: string; type?: string; readOnly?: boolean } = {},
  ) => (
    <Field
      label={label}
      name={name}
      type={props.type ?? 'text'}
      hint={props.hint}
      readOnly={props.readOnly}
      value={values[name]}
      error={fieldErrors[name]}
      onChange={(event) => setValues((current) => ({ ...current, [name]: event.target.value }))}
    />
  );

  const heading = remote ? `Settings of ${remote.title}` : 'New remote';
  const headingId = useId();
  return (
    <Card heading={heading} headingId={headingId}>
      <form
        className="atrium-admin__form"
        aria-labelledby={headingId}
        noValidate
        onSubmit={(event) => void submit(event)}
      >
        {field('name', 'Name', {
          readOnly: remote !== undefined,
          hint: remote ? 'A remote keeps its name.' : 'Module Federation name: lowercase letters, digits, -.',
        })}
        {field('title', 'Title')}
        {field('path', 'Path', { hint: 'Route in the shell, e.g. /time-off.' })}
        {field('navOrder', 'Order', {
          type: 'number',
          hint: 'Position in the navigation; lower comes first.',
        })}
        {field('requiredRoles', 'Required roles', {
          hint: 'Comma-separated; empty means every signed-in person.',
        })}
        {field('owner', 'Owner', {
          hint: 'Client id of the deployer that publishes and activates its versions.',
        })}
        {formError !== undefined && <Alert>{formError}</Alert>}
        <div className="atrium-admin__actions">
          <Button variant="secondary" onClick={onCancel}>
            Cancel
          </Button>
          <Button type="submit" busy={save.busy} busyLabel="Saving…">
            {remote ? 'Save settings' : 'Create remote'}
          </Button>
        </div>
      </form>
    </Card>
  );
}

function createdMessage(created: RemoteDetail): string {
  return `${created.title} (${created.name}) created. Its owner ${created.owner} can now publish its versions.`;
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
    const name = field.split('.')[0] as FieldName;
    if (FIELDS.includes(name) && errors[name] === undefined) errors[name] = message;
  }
  return errors;
}

import { useApi, type AdminRemotesDocument, type RemoteDetail, type VersionDocument } from '@atrium/sdk';
import {
  Alert,
  Button,
  describeApiError,
  ResourceView,
  useApiResource,
  useAsyncAction,
} from '@atrium/sdk/ui';
import { useState } from 'react';
import { ConfirmDialog } from './confirm-dialog';
import { RemoteSettingsForm } from './remote-settings-form';

interface PendingActivation {
  readonly remote: RemoteDetail;
  readonly version: string;
}

/** What the last action on the console came to, said once above the list. */
type Outcome = { readonly ok: boolean; readonly message: string } | null;

/**
 * Every registered remote with its owner and versions; any version can be activated (rolled back to) after a
 * confirmation. Administrators create remotes here and change who may see them, where they appear and which
 * deployer owns them.
 */
export function RemotesConsole() {
  const api = useApi();
  const registry = useApiResource<AdminRemotesDocument>('/api/admin/remotes');
  const activation = useAsyncAction();
  const [pending, setPending] = useState<PendingActivation | null>(null);
  const [outcome, setOutcome] = useState<Outcome>(null);
  // Which settings form is open: a new remote, or the name of the remote being edited.
  const [editing, setEditing] = useState<
    { readonly kind: 'new' } | { readonly kind: 'edit'; readonly name: string } | null
  >(null);

  const activate = async ({ remote, version }: PendingActivation) => {
    const result = await activation.run(() =>
      api.put<RemoteDetail>(`/api/remotes/${encodeURIComponent(remote.name)}/active`, { version }),
    );
    setPending(null);
    setOutcome(
      result.ok
        ? { ok: true, message: `${remote.title} ${version} is now active. People get it at their next load.` }
        : {
            ok: false,
            message: describeApiError(result.error, `${remote.title} ${version} was not activated`),
          },
    );
    if (result.ok) registry.refetch();
  };
  const saved = (message: string) => {
    setEditing(null);
    setOutcome({ ok: true, message });
    registry.refetch();
  };
  const open = (next: typeof editing) => {
    setOutcome(null);
    setEditing(next);
  };

  return (
    <ResourceView
      resource={registry}
      loading="Loading the registry…"
      failed="The registry could not be loaded"
    >
      {({ remotes }) => (
        <>
          <Alert tone="success">{outcome?.ok ? outcome.message : ''}</Alert>
          {outcome?.ok === false && <Alert>{outcome.message}</Alert>}
          {editing?.kind === 'new' ? (
            <RemoteSettingsForm onSaved={saved} onCancel={() => setEditing(null)} />
          ) : (
            <div>
              <Button onClick={() => open({ kind: 'new' })}>New remote</Button>
            </div>
          )}
          {remotes.length === 0 && (
            <p>No remote is registered yet. Create one; then its owner publishes it with the release CLI.</p>
          )}
          {remotes.map((remote) => (
            <section
              key={remote.name}
              className="atrium-admin__card"
              aria-labelledby={`remote-${remote.name}`}
              data-testid={`remote-${remote.name}`}
            >
              <h2 id={`remote-${remote.name}`}>
                {remote.title} <span className="atrium-admin__muted">({remote.name})</span>
              </h2>
              <p className="atrium-admin__muted">
                Route <code>{remote.path}</code> · order {remote.navOrder} · active version{' '}
                <strong data-testid="active-version">{remote.activeVersion ?? 'none'}</strong>
                {remote.requiredRoles.length > 0 && <> · needs {remote.requiredRoles.join(', ')}</>} · owner{' '}
                <code data-testid="owner">{remote.owner}</code>
              </p>
              {editing?.kind === 'edit' && editing.name === remote.name ? (
                <RemoteSettingsForm remote={remote} onSaved={saved} onCancel={() => setEditing(null)} />
              ) : (
                <Button variant="secondary" onClick={() => open({ kind: 'edit', name: remote.name })}>
                  Edit settings of {remote.title}
                </Button>
              )}
              <div className="atrium-admin__scroll">
                <table className="atrium-admin__table">
                  <caption className="atrium-admin__visually-hidden">Versions of {remote.title}</caption>
                  <thead>
                    <tr>
                      <th scope="col">Version</th>
                      <th scope="col">Published by</th>
                      <th scope="col">Published</th>
                      <th scope="col">
                        <span className="atrium-admin__visually-hidden">Action</span>
                      </th>
                    </tr>
                  </thead>
                  <tbody>
                    {remote.versions.map((version) => (
                      <VersionRow
                        key={version.version}
                        version={version}
                        onActivate={() => {
                          setOutcome(null);
                          setPending({ remote, version: version.version });
                        }}
                      />
                    ))}
                  </tbody>
                </table>
              </div>
            </section>
          ))}
          {pending !== null && (
            <ConfirmDialog
              title={`Activate ${pending.remote.title} ${pending.version}?`}
              message={`Everyone who may use ${pending.remote.title} gets version ${pending.version} instead of ${
                pending.remote.activeVersion ?? 'nothing'
              } the next time they load Atrium.`}
              confirmLabel={`Activate ${pending.version}`}
              busyLabel="Activating…"
              busy={activation.busy}
              onConfirm={() => void activate(pending)}
              onCancel={() => setPending(null)}
            />
          )}
        </>
      )}
    </ResourceView>
  );
}

function VersionRow({ version, onActivate }: { version: VersionDocument; onActivate: () => void }) {
  return (
    <tr data-testid={`version-${version.version}`}>
      <th scope="row">
        {version.version}
        {version.active && <span className="atrium-admin__badge">active</span>}
      </th>
      <td>{version.publishedBy}</td>
      <td>
        <time dateTime={version.publishedAt}>{formatTime(version.publishedAt)}</time>
      </td>
      <td>
        {!version.active && (
          <Button variant="secondary" onClick={onActivate}>
            Activate {version.version}
          </Button>
        )}
      </td>
    </tr>
  );
}

export function formatTime(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString();
}

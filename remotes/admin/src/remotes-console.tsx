import { useApi, type AdminRemotesDocument, type RemoteDetail, type VersionDocument } from '@atrium/sdk';
import {
  Alert,
  Button,
  Card,
  ConfirmDialog,
  describeApiError,
  Field,
  ResourceView,
  Table,
  useApiResource,
  useAsyncAction,
} from '@atrium/sdk/ui';
import { useState } from 'react';
import { RemoteSettingsForm } from './remote-settings-form';
import { RemoteHeading } from './remote-heading';

/** A version change waiting for the administrator's confirmation: activating it, or withdrawing it. */
interface PendingChange {
  readonly kind: 'activate' | 'withdraw';
  readonly remote: RemoteDetail;
  readonly version: string;
}

/** What the last action on the console came to, said once above the list. */
type Outcome = { readonly ok: boolean; readonly message: string } | null;

/**
 * Every registered remote with its owner and versions; any version can be activated (rolled back to) after a
 * confirmation, and one nobody is served can be withdrawn with a reason (open pages drop it). Administrators
 * create remotes here and change who may see them, where they appear and which deployer owns them.
 */
export function RemotesConsole() {
  const api = useApi();
  const registry = useApiResource<AdminRemotesDocument>('/api/admin/remotes');
  const activation = useAsyncAction();
  const [pending, setPending] = useState<PendingChange | null>(null);
  const [reason, setReason] = useState('');
  const [outcome, setOutcome] = useState<Outcome>(null);
  // Which settings form is open: a new remote, or the name of the remote being edited.
  const [editing, setEditing] = useState<
    { readonly kind: 'new' } | { readonly kind: 'edit'; readonly name: string } | null
  >(null);
  // The button whose form was cancelled: it takes focus again as it comes back in the form's place.
  const [cancelled, setCancelled] = useState<string | null>(null);

  const confirm = async ({ kind, remote, version }: PendingChange) => {
    const versionPath = `/api/remotes/${encodeURIComponent(remote.name)}`;
    const result = await activation.run<unknown>(() =>
      kind === 'activate'
        ? api.put<RemoteDetail>(`${versionPath}/active`, { version })
        : api.post<VersionDocument>(`${versionPath}/versions/${encodeURIComponent(version)}/withdrawal`, {
            reason: reason.trim(),
          }),
    );
    setPending(null);
    const done =
      kind === 'activate'
        ? `${remote.title} ${version} is now active. People get it at their next load.`
        : `${remote.title} ${version} is withdrawn. Open pages stop using it within seconds.`;
    const failed = `${remote.title} ${version} was not ${kind === 'activate' ? 'activated' : 'withdrawn'}`;
    setOutcome(
      result.ok
        ? { ok: true, message: done }
        : { ok: false, message: describeApiError(result.error, failed) },
    );
    if (result.ok) registry.refetch();
  };
  const ask = (change: PendingChange) => {
    setOutcome(null);
    setReason('');
    setPending(change);
  };
  const saved = (message: string) => {
    setEditing(null);
    setOutcome({ ok: true, message });
    registry.refetch();
  };
  const open = (next: typeof editing) => {
    setOutcome(null);
    setCancelled(null);
    setEditing(next);
  };
  const cancel = () => {
    setCancelled(editing?.kind === 'edit' ? editing.name : 'new');
    setEditing(null);
  };

  return (
    <ResourceView
      resource={registry}
      loading="Loading the registry…"
      failed="The registry could not be loaded"
    >
      {({ remotes }) => (
        <>
          {/* The control that led here (a version's buttons, a settings form) is gone: focus goes to the outcome. */}
          <Alert tone="success" autoFocus={outcome?.ok === true} key={outcome?.message ?? ''}>
            {outcome?.ok ? outcome.message : ''}
          </Alert>
          {outcome?.ok === false && <Alert>{outcome.message}</Alert>}
          {/* The new remote's button or form and the remotes' cards, a gap apart. */}
          <div className="atrium-admin__remotes">
            {editing?.kind === 'new' ? (
              <RemoteSettingsForm onSaved={saved} onCancel={cancel} />
            ) : (
              <div>
                <Button autoFocus={cancelled === 'new'} onClick={() => open({ kind: 'new' })}>
                  New remote
                </Button>
              </div>
            )}
            {remotes.length === 0 && (
              <p>
                No remote is registered yet. Create one; then its owner publishes it with the release CLI.
              </p>
            )}
            {remotes.map((remote) => (
              <Card
                key={remote.name}
                heading={<RemoteHeading remote={remote} />}
                data-testid={`remote-${remote.name}`}
              >
                <p className="atrium-admin__muted">
                  Route <code>{remote.path}</code> · order {remote.navOrder} · active version{' '}
                  <strong data-testid="active-version">{remote.activeVersion ?? 'none'}</strong>
                  {remote.requiredRoles.length > 0 && <> · needs {remote.requiredRoles.join(', ')}</>} · owner{' '}
                  <code data-testid="owner">{remote.owner}</code>
                </p>
                {editing?.kind === 'edit' && editing.name === remote.name ? (
                  <RemoteSettingsForm remote={remote} onSaved={saved} onCancel={cancel} />
                ) : (
                  <Button
                    variant="secondary"
                    autoFocus={cancelled === remote.name}
                    onClick={() => open({ kind: 'edit', name: remote.name })}
                  >
                    Edit settings of {remote.title}
                  </Button>
                )}
                <Table caption={`Versions of ${remote.title}`} captionHidden>
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
                        onActivate={() => ask({ kind: 'activate', remote, version: version.version })}
                        onWithdraw={() => ask({ kind: 'withdraw', remote, version: version.version })}
                      />
                    ))}
                  </tbody>
                </Table>
              </Card>
            ))}
          </div>
          {pending?.kind === 'activate' && (
            <ConfirmDialog
              title={`Activate ${pending.remote.title} ${pending.version}?`}
              message={`Everyone who may use ${pending.remote.title} gets version ${pending.version} instead of ${
                pending.remote.activeVersion ?? 'nothing'
              } the next time they load Atrium.`}
              confirmLabel={`Activate ${pending.version}`}
              busyLabel="Activating…"
              busy={activation.busy}
              onConfirm={() => void confirm(pending)}
              onCancel={() => setPending(null)}
            />
          )}
          {pending?.kind === 'withdraw' && (
            <ConfirmDialog
              title={`Withdraw ${pending.remote.title} ${pending.version}?`}
              message={`Pages still using ${pending.version} stop within seconds and show your reason, with a reload to the active version. A withdrawn version can never be activated again.`}
              confirmLabel={`Withdraw ${pending.version}`}
              busyLabel="Withdrawing…"
              busy={activation.busy}
              danger
              canConfirm={reason.trim() !== ''}
              onConfirm={() => void confirm(pending)}
              onCancel={() => setPending(null)}
            >
              <Field
                label="Reason"
                hint="Shown to the people whose pages drop it, and kept in the audit log."
                name="reason"
                value={reason}
                maxLength={500}
                required
                onChange={(event) => setReason(event.target.value)}
              />
            </ConfirmDialog>
          )}
        </>
      )}
    </ResourceView>
  );
}

function VersionRow({
  version,
  onActivate,
  onWithdraw,
}: {
  version: VersionDocument;
  onActivate: () => void;
  onWithdraw: () => void;
}) {
  const { withdrawal } = version;
  return (
    <tr data-testid={`version-${version.version}`}>
      <th scope="row">
        {version.version}
        {version.active && <span className="atrium-admin__badge">active</span>}
        {withdrawal && <span className="atrium-admin__badge atrium-admin__badge--muted">withdrawn</span>}
        {version.breaking && (
          <span
            className="atrium-admin__badge atrium-admin__badge--breaking"
            title="Published as breaking the type contract of the version active before it"
          >
            breaking
          </span>
        )}
        {withdrawal && (
          <span className="atrium-admin__muted atrium-admin__note">
            {withdrawal.reason} ({withdrawal.by},{' '}
            <time dateTime={withdrawal.at}>{formatTime(withdrawal.at)}</time>)
          </span>
        )}
      </th>
      <td>{version.publishedBy}</td>
      <td>
        <time dateTime={version.publishedAt}>{formatTime(version.publishedAt)}</time>
      </td>
      <td>
        {!version.active && !withdrawal && (
          <div className="atrium-admin__actions">
            <Button variant="secondary" onClick={onActivate}>
              Activate {version.version}
            </Button>
            <Button variant="secondary" onClick={onWithdraw}>
              Withdraw {version.version}
            </Button>
          </div>
        )}
      </td>
    </tr>
  );
}

export function formatTime(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString();
}

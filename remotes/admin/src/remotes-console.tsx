import { useApi, type AdminRemotesDocument, type RemoteDetail, type VersionDocument } from '@atrium/sdk';
import { useCallback, useEffect, useState } from 'react';
import { ConfirmDialog } from './confirm-dialog';
import { describeError } from './describe-error';
import { RemoteSettingsForm } from './remote-settings-form';

type ListState =
  | { readonly status: 'loading' }
  | { readonly status: 'ready'; readonly document: AdminRemotesDocument }
  | { readonly status: 'failed'; readonly message: string };

interface PendingActivation {
  readonly remote: RemoteDetail;
  readonly version: string;
}

/**
 * Every registered remote with its owner and versions; any version can be activated (rolled back to) after a
 * confirmation. Administrators create remotes here and change who may see them, where they appear and which
 * deployer owns them.
 */
export function RemotesConsole() {
  const api = useApi();
  const [attempt, setAttempt] = useState(0);
  const [state, setState] = useState<ListState>({ status: 'loading' });
  const [pending, setPending] = useState<PendingActivation | null>(null);
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<{ readonly ok: boolean; readonly message: string } | null>(null);
  // Which settings form is open: a new remote, or the name of the remote being edited.
  const [editing, setEditing] = useState<
    { readonly kind: 'new' } | { readonly kind: 'edit'; readonly name: string } | null
  >(null);

  useEffect(() => {
    const controller = new AbortController();
    api.get<AdminRemotesDocument>('/api/admin/remotes', { signal: controller.signal }).then(
      (document) => setState({ status: 'ready', document }),
      (error: unknown) => {
        if (!controller.signal.aborted) {
          setState({ status: 'failed', message: describeError('The registry could not be loaded', error) });
        }
      },
    );
    return () => controller.abort();
  }, [api, attempt]);

  const reload = useCallback(() => setAttempt((value) => value + 1), []);

  const activate = async ({ remote, version }: PendingActivation) => {
    setBusy(true);
    try {
      await api.put<RemoteDetail>(`/api/remotes/${encodeURIComponent(remote.name)}/active`, { version });
      setOutcome({
        ok: true,
        message: `${remote.title} ${version} is now active. People get it at their next load.`,
      });
      reload();
    } catch (error) {
      setOutcome({
        ok: false,
        message: describeError(`${remote.title} ${version} was not activated`, error),
      });
    } finally {
      setBusy(false);
      setPending(null);
    }
  };

  if (state.status === 'loading') {
    return (
      <p role="status" className="atrium-admin__muted">
        Loading the registry…
      </p>
    );
  }
  if (state.status === 'failed') {
    return (
      <div role="alert" className="atrium-admin__error">
        <p>{state.message}</p>
        <button type="button" className="atrium-admin__button" onClick={reload}>
          Retry
        </button>
      </div>
    );
  }
  const { remotes } = state.document;
  const saved = (message: string) => {
    setEditing(null);
    setOutcome({ ok: true, message });
    reload();
  };
  return (
    <>
      <p role="status" className={outcome?.ok === false ? 'atrium-admin__error' : 'atrium-admin__success'}>
        {outcome?.message ?? ''}
      </p>
      {editing?.kind === 'new' ? (
        <RemoteSettingsForm onSaved={saved} onCancel={() => setEditing(null)} />
      ) : (
        <button
          type="button"
          className="atrium-admin__button"
          onClick={() => {
            setOutcome(null);
            setEditing({ kind: 'new' });
          }}
        >
          New remote
        </button>
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
            <button
              type="button"
              className="atrium-admin__button atrium-admin__button--secondary"
              onClick={() => {
                setOutcome(null);
                setEditing({ kind: 'edit', name: remote.name });
              }}
            >
              Edit settings of {remote.title}
            </button>
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
          busy={busy}
          onConfirm={() => void activate(pending)}
          onCancel={() => setPending(null)}
        />
      )}
    </>
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
          <button
            type="button"
            className="atrium-admin__button atrium-admin__button--secondary"
            onClick={onActivate}
          >
            Activate {version.version}
          </button>
        )}
      </td>
    </tr>
  );
}

export function formatTime(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString();
}

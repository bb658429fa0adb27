import { Link, useLocationPath, type RemoteModule } from '@atrium/sdk';
import { Page } from '@atrium/sdk/ui';
import { AuditLog } from './audit-log';
import { RemotesConsole } from './remotes-console';
import './admin.css';

/** The admin remote's public surface: the registry console, mounted by the shell at its route. */
export const Feature: RemoteModule['Feature'] = function AdminFeature({ basePath }) {
  const location = useLocationPath();
  const auditPath = `${basePath}/audit`;
  const onAudit = location === auditPath;
  return (
    <div className="atrium-admin">
      <Page
        title="Registry console"
        documentTitle={`${onAudit ? 'Audit log' : 'Remotes'} · Registry console`}
      >
        <nav aria-label="Registry console" className="atrium-admin__tabs">
          <Link to={basePath} aria-current={onAudit ? undefined : 'page'}>
            Remotes
          </Link>
          <Link to={auditPath} aria-current={onAudit ? 'page' : undefined}>
            Audit log
          </Link>
        </nav>
        {onAudit ? <AuditLog /> : <RemotesConsole />}
      </Page>
      <footer className="atrium-admin__release" data-testid="remote-release">
        admin {__RELEASE_VERSION__}
      </footer>
    </div>
  );
};

import { Link, useLocationPath, type RemoteModule } from '@atrium/sdk';
import { Page } from '@atrium/sdk/ui';
import { useState } from 'react';
import { AuditLog } from './audit-log';
import { RemotesConsole } from './remotes-console';
import { RolloutsConsole } from './rollouts/rollouts-console';
import './admin.css';

/** The admin remote's public surface: the registry console, mounted by the shell at its route. */
export const Feature: RemoteModule['Feature'] = function AdminFeature({ basePath }) {
  const location = useLocationPath();
  const auditPath = `${basePath}/audit`;
  const rolloutsPath = `${basePath}/rollouts`;
  const onAudit = location === auditPath;
  const onRollouts = location === rolloutsPath;
  // The Audit log tab on the audit log leaves the path as it is and drops the filters from the address: the
  // log starts afresh from the address (audit-log.tsx reads its filters there).
  const [auditVisits, setAuditVisits] = useState(0);
  return (
    <div className="atrium-admin">
      <Page
        title="Registry console"
        documentTitle={`${onAudit ? 'Audit log' : onRollouts ? 'Rollouts' : 'Remotes'} · Registry console`}
      >
        <nav aria-label="Registry console" className="atrium-admin__tabs">
          <Link to={basePath} aria-current={onAudit || onRollouts ? undefined : 'page'}>
            Remotes
          </Link>
          <Link to={rolloutsPath} aria-current={onRollouts ? 'page' : undefined}>
            Rollouts
          </Link>
          <Link
            to={auditPath}
            aria-current={onAudit ? 'page' : undefined}
            onClick={() => onAudit && setAuditVisits((visits) => visits + 1)}
          >
            Audit log
          </Link>
        </nav>
        {onAudit ? <AuditLog key={auditVisits} /> : onRollouts ? <RolloutsConsole /> : <RemotesConsole />}
      </Page>
      <footer className="atrium-admin__release" data-testid="remote-release">
        admin {__RELEASE_VERSION__}
      </footer>
    </div>
  );
};

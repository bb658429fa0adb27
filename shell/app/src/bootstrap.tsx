import { applyTheme } from '@atrium/sdk';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app/app';
import { startUp } from './app/startup';
import { readCachedTheme } from './app/theme';
import { wantsDevOverride } from './dev-override/dev-override-keys';
import { createRemoteCatalogue } from './remote-loading/catalogue/remote-catalogue';
import { createRemoteLoader } from './remote-loading/loader/remote-loader';
import type { TrustedScriptUrls } from './remote-loading/loader/trusted-script-urls';
import './styles.css';

/**
 * Starts the shell in the page, once: the page's one remote loader, which tells `scriptUrls` (the Trusted Types
 * policies the entry module installed) what it may load, the catalogue that gives it the registry's list, the
 * page's start (run-time config, OIDC client), begun before React renders, and the app around them.
 */
export function startShell(scriptUrls: TrustedScriptUrls): void {
  applyTheme(readCachedTheme());
  const container = document.getElementById('root');
  if (container === null) throw new Error('index.html has no #root element');
  const loader = createRemoteLoader(scriptUrls);
  const catalogue = createRemoteCatalogue({ loader, wantsDevOverride });
  const startup = startUp(catalogue);
  createRoot(container).render(
    <StrictMode>
      <App startup={startup} catalogue={catalogue} loadFeature={loader.loadFeature} />
    </StrictMode>,
  );
}

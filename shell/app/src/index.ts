import { createTrustedScriptUrls } from './remote-loading/loader/trusted-script-urls';

// Before any chunk loads: the shell's Content-Security-Policy requires Trusted Types for script URLs, and the
// chunk loader's first script element is the bootstrap's below. Until the remote loader the bootstrap creates
// tells them more, they trust the shell's own chunks only.
const scriptUrls = createTrustedScriptUrls();
scriptUrls.install();
// The async boundary lets Module Federation negotiate shared singletons (react, @atrium/sdk) before any
// of them is evaluated.
void import('./bootstrap').then(({ startShell }) => startShell(scriptUrls));

import { installTrustedTypes } from './remote-loading/trusted-script-urls';

// Before any chunk loads: the shell's Content-Security-Policy requires Trusted Types for script URLs, and the
// chunk loader's first script element is the bootstrap's below.
installTrustedTypes();
// The async boundary lets Module Federation negotiate shared singletons (react, @atrium/sdk) before any
// of them is evaluated.
void import('./bootstrap');

// Dependency-free, so that the shell's Content-Security-Policy, which Node code writes for its servers, names the
// policy from the same string the browser code creates it with (./trusted-script-urls.ts).

/** The Trusted Types policy of the remote loader, which the shell's CSP names (`trusted-types`). */
export const REMOTE_LOADER_POLICY = 'atrium-remote-loader';

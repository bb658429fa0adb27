// The two names by which the shell's first bundle tells that this tab has, or asks for, a dev override, and
// only then loads the dev-override code (dev-override.ts, dev-override-panel.tsx).

/** sessionStorage key of this tab's dev overrides. */
export const DEV_OVERRIDES_KEY = 'atrium.devOverrides';

/** `?atrium-dev-override=<remote>@<dev server URL>` asks the shell to activate an override. */
export const DEV_OVERRIDE_PARAM = 'atrium-dev-override';

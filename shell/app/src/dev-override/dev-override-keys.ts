// The name by which the shell's first bundle tells that this tab has, or asks for, a dev override, and only then
// loads the dev-override code (dev-override.ts, dev-override-panel.tsx).

/**
 * `?atrium-dev-override=<remote>@<dev server URL>` asks the shell to activate an override, and the tab's
 * overrides are kept in sessionStorage under the same name (one string in the first bundle, not two).
 */
export const DEV_OVERRIDE_PARAM = 'atrium-dev-override';

/**
 * Whether this tab has a dev override or its address asks for one. Dev overrides (this folder) are a chunk of
 * their own, loaded only then, so the shell's first bundle does not carry them.
 */
export const wantsDevOverride = (): boolean =>
  DEV_OVERRIDE_PARAM in sessionStorage || location.search.includes(DEV_OVERRIDE_PARAM);

/**
 * The one rule for a remote's name and a release's version, used by the API (registry validation), the
 * release CLI, the build (a remote's rspack config) and the shell (loading remotes). Dependency-free on
 * purpose: `npm run contract` copies this file into the sdk (`@atrium/sdk` and `@atrium/sdk/build` export
 * it) and `npm test` fails when that copy is stale, so every consumer checks with the same code and says
 * the same sentence.
 *
 * A name is the Module Federation container name (a JavaScript global in `remoteEntry.js`), part of the
 * chunk-loading global `atrium_<name>`, a URL path segment of the release store and of `/api/remotes/{name}`:
 * lowercase letters and digits only, so it is a plain identifier and needs no escaping anywhere.
 */

/** A remote's name: a lowercase letter, then 1-39 lowercase letters or digits. */
export const REMOTE_NAME_PATTERN = /^[a-z][a-z0-9]{1,39}$/;

/** What is wrong with a name that does not follow {@link REMOTE_NAME_PATTERN}, as the API and tools say it. */
export const REMOTE_NAME_RULE =
  'must be 2-40 characters: a lowercase letter, then lowercase letters or digits (no - or _: the name is a JavaScript identifier in Module Federation)';

/** Longest version the registry stores. */
export const VERSION_MAX_LENGTH = 64;

// Semantic Versioning 2.0.0, the regular expression semver.org publishes (no leading "v", no spaces).
export const VERSION_PATTERN =
  /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$/;

/** What is wrong with a version that breaks the rule, as the API and tools say it. */
export const VERSION_RULE = `must be a semantic version such as 1.4.0, at most ${VERSION_MAX_LENGTH} characters`;

/** Why `name` is not a remote name ({@link REMOTE_NAME_RULE}), or undefined when it is one. */
export function remoteNameProblem(name: unknown): string | undefined {
  return typeof name === 'string' && REMOTE_NAME_PATTERN.test(name) ? undefined : REMOTE_NAME_RULE;
}

/** Why `version` is not a release version ({@link VERSION_RULE}), or undefined when it is one. */
export function versionProblem(version: unknown): string | undefined {
  return typeof version === 'string' && version.length <= VERSION_MAX_LENGTH && VERSION_PATTERN.test(version)
    ? undefined
    : VERSION_RULE;
}

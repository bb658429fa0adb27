import { DomainError } from '../common/errors/domain-errors.js';
import type { SharedDependencyConflict } from './shared-dependencies.js';

// The registry's refusals (their codes and statuses: common/errors/error-catalogue.ts).

/** No remote is registered under this name. */
export class RemoteNotFoundError extends DomainError {
  readonly code = 'remote_not_found';
  /** `hint` says what to do about it, e.g. that an administrator must create the remote first. */
  constructor(name: string, hint?: string) {
    super(`No remote is registered as "${name}".${hint ? ` ${hint}` : ''}`);
  }
}

/** A remote of this name exists already; its settings are changed with PATCH, not created again. */
export class RemoteExistsError extends DomainError {
  readonly code = 'remote_exists';
  constructor(name: string) {
    super(`A remote named "${name}" already exists; change its settings with PATCH /api/remotes/${name}.`);
  }
}

/**
 * The caller is a deployer, but not the one that owns this remote: a deployer publishes and activates only
 * the remotes whose owner is its client id (the token's `azp`).
 */
export class NotRemoteOwnerError extends DomainError {
  readonly code = 'not_remote_owner';
  override readonly extensions: Readonly<Record<string, unknown>>;
  constructor(
    name: string,
    owner: string,
    clientId: string | null,
    act: 'publish' | 'activate' | 'roll out' | 'hand over' | 'list',
  ) {
    const caller = `this token's client (azp) is ${clientId ? `"${clientId}"` : 'not named'}`;
    super(
      act === 'hand over'
        ? `Remote "${name}" is platform code, owned by "${owner}": only that client may give it another owner, ` +
            `and ${caller}. Change it with the platform's credentials, not from a browser session.`
        : `Remote "${name}" is owned by the deployer client "${owner}": only its owner may ${act} its versions` +
            `${act === 'publish' ? '' : ' (or an administrator, role atrium-admin)'}, and ${caller}. ` +
            "An administrator changes a remote's owner.",
    );
    this.extensions = { remote: name, owner };
  }
}

/** The remote exists but has no such version. */
export class VersionNotFoundError extends DomainError {
  readonly code = 'version_not_found';
  constructor(name: string, version: string) {
    super(`Remote "${name}" has no version ${version}.`);
  }
}

/** Versions are immutable: publishing one that exists is refused rather than overwritten. */
export class VersionExistsError extends DomainError {
  readonly code = 'version_exists';
  constructor(name: string, version: string) {
    super(`Remote "${name}" already has version ${version}; versions are immutable, publish a new one.`);
  }
}

/**
 * The version was registered before integrity hashes were required, so the shell could not check what it
 * loads; it is never served and cannot be made active.
 */
export class VersionUnverifiableError extends DomainError {
  readonly code = 'version_unverifiable';
  constructor(name: string, version: string) {
    super(
      `Remote "${name}" version ${version} was registered without integrity hashes, so the shell cannot ` +
        'check it: publish it again as a new version (the release CLI records both hashes).',
    );
  }
}

/** An administrator withdrew the version: it is never served again. */
export class VersionWithdrawnError extends DomainError {
  readonly code = 'version_withdrawn';
  constructor(name: string, version: string, reason: string | null) {
    super(
      `Remote "${name}" version ${version} was withdrawn${reason ? ` (${reason})` : ''} and is never served ` +
        'again: publish a fixed version and activate that one.',
    );
  }
}

/** The version is being served (active, or a running canary's), so it cannot be withdrawn yet. */
export class VersionInUseError extends DomainError {
  readonly code = 'version_in_use';
  constructor(name: string, version: string, use: 'active' | 'canary') {
    super(
      use === 'active'
        ? `Remote "${name}" version ${version} is the active version: activate another version first, then ` +
            'withdraw this one.'
        : `Remote "${name}" version ${version} is the running canary: abort the canary first ` +
            `(npm run rollout -- abort ${name}), then withdraw it.`,
    );
  }
}

/** Another remote already owns this route path. */
export class PathInUseError extends DomainError {
  readonly code = 'path_in_use';
  constructor(path: string, owner: string) {
    super(`The path ${path} belongs to remote "${owner}".`);
  }
}

/**
 * A publish whose manifest is served from an origin the API does not allow (`ALLOWED_REMOTE_ORIGINS`): a code of
 * its own, so clients need not read the message; `errors` names `manifestUrl` as `ValidationFailedError` does.
 */
export class RemoteOriginRefusedError extends DomainError {
  readonly code = 'remote_origin_refused';
  override readonly extensions: Readonly<Record<string, unknown>>;
  constructor(message: string) {
    super(`The request is invalid: manifestUrl: ${message}.`);
    this.extensions = { errors: [{ field: 'manifestUrl', message }] };
  }
}

/**
 * A release whose shared dependencies the live builds cannot meet (shared-dependencies.ts): publishing it,
 * activating it or starting its canary would put it on pages where a package it shares is another version than
 * it needs, or where its own copy is not what another build needs. `conflicts` names each package, range and
 * provider.
 */
export class SharedDependencyConflictError extends DomainError {
  readonly code = 'shared_dependency_conflict';
  override readonly extensions: Readonly<Record<string, unknown>>;
  constructor(
    readonly release: { readonly remote: string; readonly version: string; readonly label: string },
    readonly conflicts: readonly SharedDependencyConflict[],
  ) {
    const said = conflicts.map((conflict) =>
      conflict.requiredBy === release.label
        ? `it needs ${conflict.package} ${conflict.required}, and ${conflict.providedBy} provides ` +
          (conflict.provided ?? 'none')
        : `${conflict.requiredBy} needs ${conflict.package} ${conflict.required}, and the page's one copy ` +
          `could be this release's ${conflict.provided}`,
    );
    super(
      `Remote "${release.remote}" ${release.version} cannot run beside what is live: ${said.join('; ')}.`,
    );
    this.extensions = { conflicts: [...conflicts] };
  }
}

/**
 * The shell's mf-manifest.json (SHELL_MANIFEST_URL), which says what the shell provides, could not be read, so a
 * release cannot be checked against it; the request changed nothing.
 */
export class ShellManifestUnavailableError extends DomainError {
  readonly code = 'shell_manifest_unavailable';
  override readonly headers = { 'Retry-After': '30' };
  constructor(url: string, reason: string, options?: { cause?: unknown }) {
    super(
      `The shell's manifest ${url} (SHELL_MANIFEST_URL) could not be read (${reason}), so the release's shared ` +
        'dependencies could not be checked; nothing was changed.',
      options,
    );
  }
}

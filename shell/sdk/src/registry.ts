/**
 * One feature the signed-in person may use, as `GET /api/remotes` lists it. Remotes the person may not
 * use are never listed, so the shell never downloads them.
 */
export interface RemoteDescriptor {
  /** Module Federation container name (the remote's `name`), e.g. `profile`. */
  readonly name: string;
  /** Human title used in navigation and loading messages, e.g. `Profile`. */
  readonly title: string;
  /** Route the feature is mounted at, e.g. `/profile`. */
  readonly path: string;
  /** Position in the navigation; lower comes first. */
  readonly navOrder: number;
  /** The active release's version, e.g. `1.0.1`. */
  readonly version: string;
  /** Absolute URL of the active release's `mf-manifest.json`. */
  readonly entry: string;
  /**
   * Subresource-integrity hash (`sha384-…`) of the release's `remoteEntry.js`, recorded at publish. The shell
   * loads that file only with this hash.
   */
  readonly integrity: string;
  /**
   * Subresource-integrity hash (`sha384-…`) of the exact bytes of the release's `mf-manifest.json`, recorded
   * at publish. The shell reads the manifest only if it matches.
   */
  readonly manifestIntegrity: string;
}

/**
 * Response of `GET /api/remotes`.
 */
export interface RemotesDocument {
  readonly remotes: readonly RemoteDescriptor[];
}

/**
 * A registered remote as the registry administration endpoints describe it.
 */
export interface RemoteDetail {
  readonly name: string;
  readonly title: string;
  readonly path: string;
  readonly navOrder: number;
  /** Roles a person needs to see the remote; empty means every signed-in person. */
  readonly requiredRoles: readonly string[];
  /**
   * Client id of the deployer that owns the remote (the token's `azp`): the only one that may publish its
   * versions, and besides administrators the only one that may activate them.
   */
  readonly owner: string;
  /** The version the shell loads, or `null` when none is active. */
  readonly activeVersion: string | null;
  /** ISO 8601 timestamps. */
  readonly createdAt: string;
  readonly updatedAt: string;
}

/**
 * Body of `POST /api/remotes` (role atrium-admin): a new remote, without a version yet. `navOrder` defaults
 * to 100 and `requiredRoles` to none.
 */
export interface CreateRemoteRequest {
  readonly name: string;
  readonly title: string;
  readonly path: string;
  readonly navOrder?: number;
  readonly requiredRoles?: readonly string[];
  readonly owner: string;
}

/**
 * Body of `PATCH /api/remotes/{name}` (role atrium-admin): the settings to change, at least one. A remote's
 * name never changes.
 */
export type UpdateRemoteRequest = Partial<Omit<CreateRemoteRequest, 'name'>>;

/**
 * One immutable release of a remote.
 */
export interface VersionDocument {
  readonly version: string;
  readonly manifestUrl: string;
  /**
   * SRI hashes of the stored `remoteEntry.js` and `mf-manifest.json`. Both are required on publish; `null`
   * only in versions registered before they were, which the shell is never given.
   */
  readonly integrity: string | null;
  readonly manifestIntegrity: string | null;
  /** Who published it (the deployer's client id or a person's username). */
  readonly publishedBy: string;
  /** ISO 8601 timestamp. */
  readonly publishedAt: string;
  /** Whether this is the version the shell loads. */
  readonly active: boolean;
}

/**
 * Response of `GET /api/admin/remotes` (role atrium-admin): every remote with its versions, newest first.
 */
export interface AdminRemotesDocument {
  readonly remotes: readonly (RemoteDetail & { readonly versions: readonly VersionDocument[] })[];
}

/**
 * One entry of the audit log.
 */
export interface AuditEntry {
  readonly id: number;
  /** Who did it. */
  readonly actor: string;
  /**
   * What was done: `remote.created`, `remote.updated` (details: each changed setting's `from` and `to`),
   * `remote.version.published` or `remote.version.activated`.
   */
  readonly action: string;
  /** What it was done to, e.g. `profile` or `profile@1.0.1`. */
  readonly target: string;
  /** Action-specific facts (for an activation: the previous version). */
  readonly details: unknown;
  /** ISO 8601 timestamp. */
  readonly occurredAt: string;
}

/**
 * Response of `GET /api/audit?pageSize=&before=&actor=&action=&target=&from=&to=` (role atrium-admin):
 * newest first.
 */
export interface AuditPage {
  readonly items: readonly AuditEntry[];
  readonly pageSize: number;
  /** Pass back as `before` for the next, older page; `null` on the last page. */
  readonly nextCursor: string | null;
}

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
 * A remote's latest canary (`GET /api/remotes/{name}/rollout`, administrators or the owning deployer): a
 * published version served instead of the active one to a share of people and to holders of its roles.
 */
export interface RolloutDocument {
  readonly remote: string;
  /** The canary version. */
  readonly version: string;
  /** The active version everybody else gets. */
  readonly stableVersion: string | null;
  /** Share of people (0-100), chosen by the API from a hash of their identity. */
  readonly percent: number;
  readonly roles: readonly string[];
  readonly state: 'running' | 'promoted' | 'aborted';
  readonly startedBy: string;
  readonly startedAt: string;
  readonly updatedAt: string;
  readonly endedBy: string | null;
  readonly endedAt: string | null;
  /** Why it ended: the operator's words, or the automatic rollback's statistics. */
  readonly reason: string | null;
}

/** One minute of a version's field health (sums over everybody who reported). */
export interface HealthPoint {
  /** ISO 8601 start of the minute. */
  readonly minute: string;
  /** Loads tried (succeeded or failed to load). */
  readonly attempts: number;
  /** Load failures plus render errors. */
  readonly failures: number;
  readonly failuresByKind: {
    readonly download: number;
    readonly integrity: number;
    readonly timeout: number;
    readonly render: number;
  };
  readonly loadMsMean: number | null;
  readonly renderMsMean: number | null;
  /** LCP, INP and CLS samples rated poor, of `vitals`. */
  readonly poorVitals: number;
  readonly vitals: number;
}

/** Response of `GET /api/admin/remotes/{name}/health?minutes=` (role atrium-admin). */
export interface RemoteHealthDocument {
  readonly remote: string;
  readonly since: string;
  readonly versions: readonly { readonly version: string; readonly points: readonly HealthPoint[] }[];
}

/**
 * One entry of the audit log.
 */
export interface AuditEntry {
  readonly id: string;
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
 * Response of `GET /api/audit?page=&pageSize=` (role atrium-admin).
 */
export interface AuditPage {
  readonly items: readonly AuditEntry[];
  /** 1-based page number. */
  readonly page: number;
  readonly pageSize: number;
  /** Number of entries over all pages. */
  readonly total: number;
}

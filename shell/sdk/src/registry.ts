import type { components } from './generated/api';

// The registry's wire types, generated from the API's OpenAPI document (`npm run contract`); the names
// remotes and the shell use stay, as aliases.
type Schemas = components['schemas'];

/**
 * One feature the signed-in person may use, as `GET /api/remotes` lists it (`RemoteEntry`). Remotes the
 * person may not use are never listed, so the shell never downloads them.
 */
export type RemoteDescriptor = Schemas['RemoteEntry'];

/** Response of `GET /api/remotes` (`RemoteList`). */
export type RemotesDocument = Schemas['RemoteList'];

/** A registered remote as the registry administration endpoints describe it (`RemoteDetail`). */
export type RemoteDetail = Schemas['RemoteDetail'];

/** Body of `POST /api/remotes` (role atrium-admin): a new remote, without a version yet (`CreateRemote`). */
export type CreateRemoteRequest = Schemas['CreateRemote'];

/** Body of `PATCH /api/remotes/{name}` (role atrium-admin): the settings to change, at least one. */
export type UpdateRemoteRequest = Schemas['UpdateRemote'];

/** One immutable release of a remote (`VersionDoc`). */
export type VersionDocument = Schemas['VersionDoc'];

/** Response of `GET /api/admin/remotes` (role atrium-admin): every remote with its versions, newest first. */
export type AdminRemotesDocument = Schemas['AdminRemoteList'];

/**
 * A remote's latest canary (`GET /api/remotes/{name}/rollout`, administrators or the owning deployer): a
 * published version served instead of the active one to a share of people and to holders of its roles.
 */
export type RolloutDocument = Schemas['Rollout'];

/** One minute of a version's field health (sums over everybody who reported). */
export type HealthPoint = RemoteHealthDocument['versions'][number]['points'][number];

/** Response of `GET /api/admin/remotes/{name}/health?minutes=` (role atrium-admin). */
export type RemoteHealthDocument = Schemas['RemoteHealth'];

/** One entry of the audit log (`AuditEvent`). */
export type AuditEntry = Schemas['AuditEvent'];

/** An action the platform itself records (`AuditAction`); Keycloak's events are `keycloak.<event type>`. */
export type AuditAction = Schemas['AuditAction'];

/** Response of `GET /api/audit?pageSize=&before=&actor=&action=&target=&remote=&from=&to=` (role atrium-admin): newest first. */
export type AuditPage = Schemas['AuditPage'];

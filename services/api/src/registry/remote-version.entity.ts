import { defineEntity, type InferEntity, p } from '@mikro-orm/core';
import { MAX_NAME_LENGTH } from '../auth/index.js';
import { Remote } from './remote.entity.js';
import type { SharedDependency } from './shared-dependencies.js';

/** One published, immutable build of a remote; at most one version of a remote is active. */
export const RemoteVersion = defineEntity({
  name: 'RemoteVersion',
  tableName: 'remote_version',
  uniques: [{ properties: ['remote', 'version'] }],
  properties: {
    id: p.integer().primary().autoincrement(),
    remote: () => p.manyToOne(Remote).fieldName('remote_name').deleteRule('cascade'),
    version: p.string().length(64),
    manifestUrl: p.string().length(2048),
    // SRI hashes of the stored remoteEntry.js and mf-manifest.json. Required on publish; null only in
    // versions registered before they were, which are never served (see RegistryService.listForUser).
    integrity: p.string().length(200).nullable(),
    manifestIntegrity: p.string().length(200).nullable(),
    // The packages its mf-manifest.json shares, read from the manifest sent with the publish. Null for versions
    // published without it (before the shared-dependency gate, or by a client that does not send it): unchecked.
    shared: p.json<SharedDependency[]>().nullable(),
    // `AuthenticatedUser.actor`, bounded when the token is read.
    publishedBy: p.string().length(MAX_NAME_LENGTH),
    publishedAt: p.datetime(),
    active: p.boolean().default(false),
    // Withdrawn by an administrator (never active or in a canary again; open pages drop it): when, by whom, why.
    withdrawnAt: p.datetime().nullable(),
    withdrawnBy: p.string().length(MAX_NAME_LENGTH).nullable(),
    withdrawalReason: p.string().length(500).nullable(),
    // Published as breaking the type contract of the version active before it (docs/adr/0014).
    breaking: p.boolean().default(false),
  },
});

export type RemoteVersion = InferEntity<typeof RemoteVersion>;

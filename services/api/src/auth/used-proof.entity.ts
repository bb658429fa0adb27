import { defineEntity, type InferEntity, p } from '@mikro-orm/core';

/**
 * A DPoP proof some replica accepted, so that no replica accepts it again (shared-proof-replays.ts): written
 * on PostgreSQL only (a SQLite API is one process, whose own memory is enough), and kept only until every
 * replica would refuse the proof as too old anyway. The PostgreSQL table is UNLOGGED (its migration says so):
 * these rows are worth no WAL, and a database that crashes or fails over to a standby starts them empty.
 */
export const UsedProof = defineEntity({
  name: 'UsedProof',
  tableName: 'used_dpop_proof',
  properties: {
    /**
     * The first 128 bits of the SHA-256 of the proof key's thumbprint and the proof's `jti`, base64url: a fixed
     * size whatever the client sends, and nothing of the proof itself.
     */
    id: p.string().length(22).primary(),
    /** When the row may go (seconds since the Unix epoch): the proof is too old for every replica by then. */
    expiresAt: p.integer(),
  },
});

export type UsedProof = InferEntity<typeof UsedProof>;

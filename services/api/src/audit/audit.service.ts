import { Injectable } from '@nestjs/common';
import { EntityManager, type FilterQuery } from '@mikro-orm/core';
import { AuditEvent } from './audit-event.entity.js';
import { type AuditAction, type AuditQuery, type auditPageSchema, encodeCursor } from './audit.schemas.js';
import { REMOTE_NAME_PATTERN } from '../registry/remote-rules.js';
import type { z } from 'zod';

/** What a change records about itself. */
export interface AuditRecord {
  /** `AuthenticatedUser.actor`: the person's user name or a client's id. */
  readonly actor: string;
  /** `AuthenticatedUser.name`: the person's display name, as their token gave it; none for a client. */
  readonly actorName?: string | null;
  readonly action: AuditAction;
  readonly target: string;
  /** `remote`, a remote's name, makes the entry one of that remote's (`GET /api/audit?remote=`). */
  readonly details: Record<string, unknown>;
}

/** Who an entry names: the caller (an `AuthenticatedUser` is one), or the API acting by itself. */
export interface AuditActor {
  readonly actor: string;
  readonly name: string | null;
}

/** The remote an entry is about: its details' `remote`, when that is a remote's name. */
function remoteOf(details: Record<string, unknown>): string | null {
  const remote = details['remote'];
  return typeof remote === 'string' && REMOTE_NAME_PATTERN.test(remote) ? remote : null;
}

/** One page of audit events, newest first, as `GET /api/audit` describes it (audit.schemas.ts); `nextCursor`
 * leads to the older ones. */
export type AuditPage = z.output<typeof auditPageSchema>;

/** An audit event as `GET /api/audit` returns it. */
export type AuditEventDocument = AuditPage['items'][number];

/** Writes audit events inside the caller's transaction and reads them back for administrators. */
@Injectable()
export class AuditService {
  constructor(private readonly em: EntityManager) {}

  /** Adds an event to `em`'s unit of work: it is written by the same flush, in the same transaction. */
  record(em: EntityManager, record: AuditRecord, occurredAt: Date = new Date()): void {
    em.create(AuditEvent, {
      ...record,
      actorName: record.actorName ?? null,
      remote: remoteOf(record.details),
      occurredAt,
    });
  }

  /**
   * Inside the caller's transaction: drops the display name from every entry `actor` wrote (the erasure of a
   * person: their profile knows the user name they acted under).
   */
  async forgetName(em: EntityManager, actor: string): Promise<void> {
    await em.nativeUpdate(AuditEvent, { actor, actorName: { $ne: null } }, { actorName: null });
  }

  /**
   * A page of the log, newest first, after the `before` cursor (keyset pagination): as cheap ten thousand
   * pages deep as on the first one, because it is one range scan of an index that ends with (occurredAt, id)
   * (see the entity). One entry more than the page is read to know whether another page follows.
   */
  async list(query: AuditQuery): Promise<AuditPage> {
    const { pageSize, before } = query;
    const where: FilterQuery<AuditEvent>[] = [];
    if (query.actor) where.push({ actor: query.actor });
    if (query.action) where.push({ action: query.action });
    if (query.target) where.push({ target: query.target });
    if (query.remote) where.push({ remote: query.remote });
    if (query.from) where.push({ occurredAt: { $gte: query.from } });
    if (query.to) where.push({ occurredAt: { $lt: query.to } });
    if (before) {
      // The first condition alone bounds the index range; the second picks up after the cursor's entry.
      where.push({ occurredAt: { $lte: before.occurredAt } });
      where.push({ $or: [{ occurredAt: { $lt: before.occurredAt } }, { id: { $lt: before.id } }] });
    }
    const events = await this.em.find(
      AuditEvent,
      { $and: where },
      { orderBy: { occurredAt: 'desc', id: 'desc' }, limit: pageSize + 1, disableIdentityMap: true },
    );
    const page = events.slice(0, pageSize);
    const last = page.at(-1);
    return {
      items: page.map((event) => ({
        id: event.id,
        actor: event.actor,
        actorName: event.actorName ?? null,
        action: event.action as AuditAction,
        target: event.target,
        details: event.details,
        occurredAt: event.occurredAt.toISOString(),
      })),
      pageSize,
      nextCursor: events.length > pageSize && last ? encodeCursor(last) : null,
    };
  }
}

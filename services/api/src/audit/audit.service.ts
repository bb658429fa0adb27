import { Injectable } from '@nestjs/common';
import { EntityManager, type FilterQuery } from '@mikro-orm/core';
import { AuditEvent } from './audit-event.entity.js';
import { type AuditQuery, type auditPageSchema, encodeCursor } from './audit.schemas.js';
import type { z } from 'zod';

/** What a registry change records about itself. */
export interface AuditRecord {
  readonly actor: string;
  readonly action: string;
  readonly target: string;
  readonly details: Record<string, unknown>;
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
    em.create(AuditEvent, { ...record, occurredAt });
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
        action: event.action,
        target: event.target,
        details: event.details,
        occurredAt: event.occurredAt.toISOString(),
      })),
      pageSize,
      nextCursor: events.length > pageSize && last ? encodeCursor(last) : null,
    };
  }
}

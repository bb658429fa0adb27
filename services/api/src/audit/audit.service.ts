import { Injectable } from '@nestjs/common';
import { EntityManager } from '@mikro-orm/core';
import { AuditEvent } from './audit-event.entity.js';
import type { auditPageSchema } from './audit.schemas.js';
import type { z } from 'zod';

/** What a registry change records about itself. */
export interface AuditRecord {
  readonly actor: string;
  readonly action: string;
  readonly target: string;
  readonly details: Record<string, unknown>;
}

/** One page of audit events, newest first, as `GET /api/audit` describes it (audit.schemas.ts). */
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

  async list(page: number, pageSize: number): Promise<AuditPage> {
    const [events, total] = await this.em.findAndCount(
      AuditEvent,
      {},
      { orderBy: { occurredAt: 'desc', id: 'desc' }, limit: pageSize, offset: (page - 1) * pageSize },
    );
    return {
      items: events.map((event) => ({
        id: event.id,
        actor: event.actor,
        action: event.action,
        target: event.target,
        details: event.details,
        occurredAt: event.occurredAt.toISOString(),
      })),
      page,
      pageSize,
      total,
    };
  }
}

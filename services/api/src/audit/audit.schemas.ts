import { z } from 'zod';

/** Query of `GET /api/audit`. */
export const auditQuerySchema = z.strictObject({
  page: z.coerce
    .number('must be an integer')
    .int('must be an integer')
    .min(1, 'must be 1 or more')
    .default(1),
  pageSize: z.coerce
    .number('must be an integer')
    .int('must be an integer')
    .min(1, 'must be 1 or more')
    .max(100, 'must be 100 or less')
    .default(20),
});

export type AuditQuery = z.output<typeof auditQuerySchema>;

/** Response of `GET /api/audit`. */
export const auditPageSchema = z
  .object({
    items: z.array(
      z
        .object({
          id: z.int(),
          actor: z.string(),
          action: z
            .string()
            .describe(
              "remote.created, remote.updated (details: each changed setting's from and to), remote.version.published or remote.version.activated",
            ),
          target: z.string(),
          details: z.record(z.string(), z.unknown()),
          occurredAt: z.iso.datetime(),
        })
        .meta({
          id: 'AuditEvent',
          example: {
            id: 42,
            actor: 'atrium-deployer',
            action: 'remote.version.activated',
            target: 'profile@1.0.1',
            details: { previous: '1.0.0' },
            occurredAt: '2026-11-23T10:45:38.000Z',
          },
        }),
    ),
    page: z.int().describe('1-based page number'),
    pageSize: z.int(),
    total: z.int().describe('number of events over all pages'),
  })
  .meta({ id: 'AuditPage' });

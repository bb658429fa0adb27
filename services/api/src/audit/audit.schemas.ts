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
export const auditPageSchema = z.object({
  items: z.array(
    z
      .object({
        id: z.int(),
        actor: z.string(),
        action: z.string(),
        target: z.string(),
        details: z.record(z.string(), z.unknown()),
        occurredAt: z.iso.datetime(),
      })
      .meta({ id: 'AuditEvent' }),
  ),
  page: z.int(),
  pageSize: z.int(),
  total: z.int(),
});

import { z } from 'zod';
import { MAX_NAME_LENGTH } from '../auth/index.js';
import { REMOTE_NAME_PATTERN, REMOTE_NAME_RULE } from '../registry/remote-rules.js';

/**
 * What the platform's own writes record, each as one action name (AuditRecord takes only these, or a copied
 * Keycloak event). In the contract as `AuditAction`, so the admin console lists and words every one of them.
 */
export const AUDIT_ACTIONS = [
  'remote.created',
  'remote.updated',
  'remote.version.published',
  'remote.version.activated',
  'remote.version.refused',
  'remote.version.withdrawn',
  'remote.rollout.started',
  'remote.rollout.changed',
  'remote.rollout.promoted',
  'remote.rollout.aborted',
  'remote.rollout.rolled_back',
  'dev.override.activated',
  'dev.override.reset',
  'account.deleted',
] as const;

/** Keycloak's events, as KeycloakEventsPoller copies them: `keycloak.<type>`, `keycloak.admin.<operation>_<resource>`. */
export type KeycloakAction = `keycloak.${string}`;

/** An audit event's action: one of the platform's, or a Keycloak event. */
export type AuditAction = (typeof AUDIT_ACTIONS)[number] | KeycloakAction;

const KEYCLOAK_ACTION = /^keycloak\.[a-z0-9_.]{1,55}$/;

const actionSchema = z.union(
  [
    z.enum(AUDIT_ACTIONS).meta({
      id: 'AuditAction',
      description:
        "An action of the platform's: remote.created, remote.updated (details: each changed setting's from and to), remote.version.published, remote.version.activated, remote.version.refused (details: the act refused, its reason and the shared-dependency conflicts), remote.version.withdrawn, remote.rollout.* (a canary's steps), dev.override.* (a developer's dev overrides), account.deleted",
    }),
    z
      .string()
      .regex(KEYCLOAK_ACTION)
      .describe(
        'A Keycloak event copied into the log: keycloak.<event type>, e.g. keycloak.login_error, or keycloak.admin.<operation>_<resource>',
      ),
  ],
  { error: "must be one of the platform's actions (AuditAction) or keycloak.<event type>" },
);

/**
 * Where a page of the audit log starts: just after (older than) the entry at `occurredAt` with `id`. Sent as
 * an opaque token (`nextCursor`), base64url of `<ISO time>|<id>`; a client passes it back unchanged.
 */
export interface AuditCursor {
  readonly occurredAt: Date;
  readonly id: number;
}

export function encodeCursor(cursor: AuditCursor): string {
  return Buffer.from(`${cursor.occurredAt.toISOString()}|${cursor.id}`).toString('base64url');
}

const cursorSchema = z.string().transform((value, ctx): AuditCursor => {
  const [time, id, ...rest] = Buffer.from(value, 'base64url').toString('utf8').split('|');
  const occurredAt = new Date(time ?? '');
  const number = Number(id);
  if (
    rest.length > 0 ||
    !/^[A-Za-z0-9_-]{1,96}$/.test(value) ||
    Number.isNaN(occurredAt.getTime()) ||
    occurredAt.toISOString() !== time ||
    !Number.isSafeInteger(number) ||
    number < 1 ||
    String(number) !== id
  ) {
    ctx.addIssue({ code: 'custom', message: "must be a page's nextCursor, passed back unchanged" });
    return z.NEVER;
  }
  return { occurredAt, id: number };
});

const instant = z.iso
  .datetime({ offset: true, error: 'must be an ISO 8601 date and time, e.g. 2026-11-23T12:00:00Z' })
  .transform((value) => new Date(value));

/**
 * Query of `GET /api/audit`: newest first, `pageSize` entries after the `before` cursor, optionally only one
 * actor, action, target or remote and a time range [`from`, `to`).
 */
export const auditQuerySchema = z
  .strictObject({
    pageSize: z.coerce
      .number('must be an integer')
      .int('must be an integer')
      .min(1, 'must be 1 or more')
      .max(100, 'must be 100 or less')
      .default(20),
    before: cursorSchema.optional(),
    actor: z.string().min(1).max(MAX_NAME_LENGTH).optional(),
    action: actionSchema.optional(),
    target: z.string().min(1).max(255).optional(),
    remote: z
      .string()
      .regex(REMOTE_NAME_PATTERN, REMOTE_NAME_RULE)
      .optional()
      .describe('only the entries about this remote (its settings, versions, canaries and dev overrides)'),
    from: instant.optional(),
    to: instant.optional(),
  })
  .refine((query) => !query.from || !query.to || query.from < query.to, {
    message: 'must be later than from',
    path: ['to'],
  });

export type AuditQuery = z.output<typeof auditQuerySchema>;

/** Response of `GET /api/audit`. */
export const auditPageSchema = z
  .object({
    items: z.array(
      z
        .object({
          id: z.int(),
          actor: z.string().describe("the person's user name, or the client id of a service account"),
          actorName: z
            .string()
            .nullable()
            .describe(
              "the person's display name when the entry was written (their token's name); null for a client",
            ),
          action: actionSchema,
          target: z.string(),
          details: z.record(z.string(), z.unknown()),
          occurredAt: z.iso.datetime(),
        })
        .meta({
          id: 'AuditEvent',
          example: {
            id: 42,
            actor: 'atrium-deployer',
            actorName: null,
            action: 'remote.version.activated',
            target: 'profile@1.0.1',
            details: { previous: '1.0.0' },
            occurredAt: '2026-11-23T10:45:38.000Z',
          },
        }),
    ),
    pageSize: z.int(),
    nextCursor: z
      .string()
      .nullable()
      .describe('Pass as `before` for the next (older) page; null on the last page.'),
  })
  .meta({ id: 'AuditPage' });

import { createHash } from 'node:crypto';
import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { EntityManager, LockMode, MikroORM } from '@mikro-orm/core';
import { type AuditRecord, AuditService, type KeycloakAction } from '../audit/index.js';
import { APP_CONFIG, type AppConfig } from '../config/index.js';
import { ErasedSubject } from './erased-subject.entity.js';
import {
  EVENTS_PAGE_SIZE,
  type KeycloakAdminEvent,
  KeycloakAdminClient,
  type KeycloakEvent,
} from './keycloak-admin.client.js';
import { KeycloakEventCursor, type KeycloakEventStream } from './keycloak-event-cursor.entity.js';
import { subjectHash, SubjectErasure, userTarget } from './subject-erasure.js';

/** One Keycloak event of either stream, with what the audit log needs to know about it. */
interface StreamEvent {
  readonly key: string;
  readonly time: number;
  /** User ids the event names (subject, admin, resource), checked against deleted accounts. */
  readonly userIds: readonly string[];
  /** The user the audit actor names (by user name or id), if any. */
  readonly actorUserId: string | undefined;
  /** The user Keycloak deleted with this event (their own delete_account, or an administrator), if any. */
  readonly deletedUserId: string | undefined;
  readonly record: AuditRecord;
}

/**
 * Events younger than this wait for the next poll: Keycloak takes an event's time when it happens and stores it
 * when its transaction ends, so a younger one could still appear behind the cursor once it has moved past.
 */
export const SETTLE_MS = 5_000;

/** Stops paging through history after this many pages in one poll (the rest comes next poll). */
const MAX_PAGES_PER_POLL = 50;

const UUID_IN_PATH = /(?<=^users\/)[^/]+/;

/**
 * Copies Keycloak's login events and admin events into the audit log every `KEYCLOAK_EVENTS_POLL_SECONDS`,
 * so administrators see sign-ins, failures and credential changes beside registry changes (as `keycloak.<type>`
 * and `keycloak.admin.<operation>_<resource>`, e.g. `keycloak.login_error`). Each stream has a
 * cursor in the database, written in the same transaction as the events it accounts for: after a restart,
 * or a poll that failed half-way, copying resumes exactly where it stopped, nothing twice, nothing lost.
 *
 * It is also how the API learns that Keycloak deleted someone (the person's own `delete_account`, or an
 * administrator): the same transaction erases what the API keeps about them (SubjectErasure), and records the
 * deletion and every event about them under an anonymous id.
 */
@Injectable()
export class KeycloakEventsPoller implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(KeycloakEventsPoller.name);
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;

  constructor(
    private readonly orm: MikroORM,
    private readonly keycloak: KeycloakAdminClient,
    private readonly audit: AuditService,
    private readonly erasure: SubjectErasure,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onApplicationBootstrap(): void {
    const seconds = this.config.keycloakAdmin.eventsPollSeconds;
    if (seconds === 0) return;
    const tick = () => {
      if (this.stopped) return;
      this.running = this.pollOnce()
        .then(() => undefined)
        .catch((error: unknown) =>
          this.logger.warn(`Copying Keycloak events failed, retrying: ${String(error)}`),
        )
        .finally(() => {
          this.running = undefined;
          if (!this.stopped) this.timer = setTimeout(tick, seconds * 1000);
        });
    };
    this.timer = setTimeout(tick, 0);
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  /** Copies whatever is new in both streams; returns how many events were added to the audit log. */
  async pollOnce(): Promise<number> {
    const events = await this.copy('events', (first, max) =>
      this.keycloak.events({ first, max }).then((page) => page.map(fromLoginEvent)),
    );
    const admin = await this.copy('admin-events', (first, max) =>
      this.keycloak.adminEvents({ first, max }).then((page) => page.map(fromAdminEvent)),
    );
    return events + admin;
  }

  private async copy(
    stream: KeycloakEventStream,
    page: (first: number, max: number) => Promise<StreamEvent[]>,
  ): Promise<number> {
    const em = this.orm.em.fork();
    const cursor = await em.findOne(KeycloakEventCursor, { stream });
    const lastTime = cursor?.lastTime ?? -1;
    const lastKeys = new Set(cursor?.lastKeys ?? []);

    // Keycloak lists newest first: page back until events older than the cursor. Offsets shift when events
    // arrive meanwhile, which only repeats some (dropped by key), never skips one.
    const fresh = new Map<string, StreamEvent>();
    const settled = Date.now() - SETTLE_MS;
    for (let pageIndex = 0; pageIndex < MAX_PAGES_PER_POLL; pageIndex++) {
      const events = await page(pageIndex * EVENTS_PAGE_SIZE, EVENTS_PAGE_SIZE);
      for (const event of events) {
        const seen = event.time < lastTime || (event.time === lastTime && lastKeys.has(event.key));
        if (!seen && event.time <= settled) fresh.set(event.key, event);
      }
      const oldest = events.at(-1);
      if (events.length < EVENTS_PAGE_SIZE || (oldest && oldest.time < lastTime)) break;
    }
    if (fresh.size === 0) return 0;

    const ordered = [...fresh.values()].sort((a, b) => a.time - b.time || a.key.localeCompare(b.key));
    const newest = ordered.at(-1)!.time;
    const keysAtNewest = ordered.filter((event) => event.time === newest).map((event) => event.key);
    const copied = await em.transactional(async (tx) => {
      // Another API replica may have copied the same events meanwhile: the row lock orders the copies, and
      // a cursor that moved means this copy is dropped (the next poll starts from the new cursor).
      const locked = await tx.findOne(
        KeycloakEventCursor,
        { stream },
        this.config.database.driver === 'postgresql'
          ? { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true }
          : { refresh: true },
      );
      if ((locked?.lastTime ?? -1) !== lastTime || (locked?.lastKeys.length ?? 0) !== lastKeys.size) return 0;
      for (const event of ordered) {
        if (event.deletedUserId !== undefined)
          await this.erasure.erase(tx, event.deletedUserId, new Date(event.time));
      }
      const erased = await this.erasedSubjects(tx, ordered);
      for (const event of ordered) {
        this.audit.record(tx, anonymise(event, erased), new Date(event.time));
      }
      await tx.upsert(KeycloakEventCursor, {
        stream,
        lastTime: newest,
        lastKeys: newest === lastTime ? [...lastKeys, ...keysAtNewest] : keysAtNewest,
        updatedAt: new Date(),
      });
      return ordered.length;
    });
    if (copied === 0) return 0;
    this.logger.log(`Copied ${ordered.length} Keycloak ${stream} to the audit log`);
    return ordered.length;
  }

  /** Former subject → anonymous id, for the deleted accounts these events name. */
  private async erasedSubjects(
    em: EntityManager,
    events: readonly StreamEvent[],
  ): Promise<Map<string, string>> {
    const ids = [...new Set(events.flatMap((event) => event.userIds))];
    if (ids.length === 0) return new Map();
    const byHash = new Map(ids.map((id) => [subjectHash(id), id]));
    const rows = await em.find(ErasedSubject, { subjectHash: { $in: [...byHash.keys()] } });
    return new Map(rows.map((row) => [byHash.get(row.subjectHash)!, row.anonymousId]));
  }
}

function keyOf(event: { id?: string }): string {
  return event.id ?? createHash('sha256').update(JSON.stringify(event)).digest('hex');
}

function defined(values: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(values).filter(([, value]) => value !== undefined && value !== null),
  );
}

/** The audit action of a Keycloak event: `keycloak.<name>` in lower case, cut to the column's 64 characters. */
function keycloakAction(name: string): KeycloakAction {
  return `keycloak.${name.toLowerCase()}`.slice(0, 64) as KeycloakAction;
}

function fromLoginEvent(event: KeycloakEvent): StreamEvent {
  return {
    key: keyOf(event),
    time: event.time,
    userIds: event.userId ? [event.userId] : [],
    actorUserId: event.userId,
    // Keycloak's delete_account action: the person deleted their own account there, after signing in again.
    deletedUserId: event.type === 'DELETE_ACCOUNT' && !event.error ? event.userId : undefined,
    record: {
      actor: event.details?.['username'] ?? event.userId ?? 'keycloak',
      action: keycloakAction(event.type),
      target: event.userId ? userTarget(event.userId) : 'keycloak',
      details: defined({
        source: 'keycloak',
        clientId: event.clientId,
        ipAddress: event.ipAddress,
        error: event.error,
        sessionId: event.sessionId,
        ...event.details,
      }),
    },
  };
}

function fromAdminEvent(event: KeycloakAdminEvent): StreamEvent {
  const subject = event.resourcePath?.match(UUID_IN_PATH)?.[0];
  const admin = event.authDetails?.userId;
  const userDeleted =
    event.operationType === 'DELETE' &&
    event.resourceType === 'USER' &&
    !event.error &&
    subject !== undefined &&
    event.resourcePath === `users/${subject}`;
  return {
    key: keyOf(event),
    time: event.time,
    userIds: [subject, admin].filter((id): id is string => id !== undefined),
    actorUserId: admin,
    deletedUserId: userDeleted ? subject : undefined,
    record: {
      actor: admin ?? 'keycloak',
      action: keycloakAction(`admin.${event.operationType}_${event.resourceType ?? 'resource'}`),
      target: subject ? userTarget(subject) : (event.resourcePath ?? 'keycloak').slice(0, 255),
      details: defined({
        source: 'keycloak-admin',
        clientId: event.authDetails?.clientId,
        ipAddress: event.authDetails?.ipAddress,
        resourcePath: event.resourcePath,
        error: event.error,
      }),
    },
  };
}

/** The event with every id of a deleted account replaced by its anonymous id, and no personal details. */
function anonymise(event: StreamEvent, erased: ReadonlyMap<string, string>): AuditRecord {
  if (!event.userIds.some((id) => erased.has(id))) return event.record;
  const replace = (text: string) =>
    [...erased].reduce((result, [id, anonymousId]) => result.replaceAll(id, anonymousId), text);
  const actorErased = event.actorUserId === undefined ? undefined : erased.get(event.actorUserId);
  return {
    action: event.record.action,
    actor: actorErased ?? replace(event.record.actor),
    target: replace(event.record.target),
    details: { source: event.record.details['source'] },
  };
}

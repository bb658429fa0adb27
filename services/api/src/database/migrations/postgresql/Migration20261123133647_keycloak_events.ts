import { Migration } from '@mikro-orm/migrations';

/** Keycloak's events in the audit log: a cursor per stream; deleted accounts known only by a hash. */
export class Migration20261123133647_keycloak_events extends Migration {
  override name = 'Migration20261123133647_keycloak_events';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "erased_subject" ("subject_hash" varchar(64) not null, "anonymous_id" varchar(64) not null, "erased_at" timestamptz not null, primary key ("subject_hash"));`,
    );

    this.addSql(
      `create table "keycloak_event_cursor" ("stream" text not null, "last_time" bigint not null, "last_keys" jsonb not null, "updated_at" timestamptz not null, primary key ("stream"));`,
    );

    this.addSql(
      `alter table "keycloak_event_cursor" add constraint "keycloak_event_cursor_stream_check" check ("stream" in ('events', 'admin-events'));`,
    );

    // One row per stream from the start, so that every copy can lock its row (API replicas poll concurrently).
    this.addSql(
      `insert into "keycloak_event_cursor" ("stream", "last_time", "last_keys", "updated_at") values ('events', -1, '[]', current_timestamp), ('admin-events', -1, '[]', current_timestamp);`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "erased_subject" cascade;`);
    this.addSql(`drop table if exists "keycloak_event_cursor" cascade;`);
  }
}

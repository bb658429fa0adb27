import { Migration } from '@mikro-orm/migrations';

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
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "erased_subject" cascade;`);
    this.addSql(`drop table if exists "keycloak_event_cursor" cascade;`);
  }
}

import { Migration } from '@mikro-orm/migrations';

export class Migration20261122022024_registry extends Migration {
  override name = 'Migration20261122022024_registry';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "audit_event" ("id" serial primary key, "actor" varchar(255) not null, "action" varchar(64) not null, "target" varchar(255) not null, "details" jsonb not null, "occurred_at" timestamptz not null);`,
    );
    this.addSql(`create index "audit_event_occurred_at_index" on "audit_event" ("occurred_at");`);

    this.addSql(
      `create table "remote" ("name" varchar(40) not null, "title" varchar(80) not null, "path" varchar(100) not null, "nav_order" int not null default 100, "required_roles" jsonb not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("name"));`,
    );
    this.addSql(`alter table "remote" add constraint "remote_path_unique" unique ("path");`);

    this.addSql(
      `create table "remote_version" ("id" serial primary key, "remote_name" varchar(40) not null, "version" varchar(64) not null, "manifest_url" varchar(2048) not null, "integrity" varchar(200) null, "published_by" varchar(255) not null, "published_at" timestamptz not null, "active" boolean not null default false);`,
    );
    this.addSql(
      `alter table "remote_version" add constraint "remote_version_remote_name_version_unique" unique ("remote_name", "version");`,
    );

    this.addSql(
      `alter table "remote_version" add constraint "remote_version_remote_name_foreign" foreign key ("remote_name") references "remote" ("name") on delete cascade;`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "remote_version" drop constraint "remote_version_remote_name_foreign";`);

    this.addSql(`drop table if exists "audit_event" cascade;`);
    this.addSql(`drop table if exists "remote" cascade;`);
    this.addSql(`drop table if exists "remote_version" cascade;`);
  }
}

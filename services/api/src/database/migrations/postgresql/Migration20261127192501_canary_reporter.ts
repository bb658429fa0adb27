import { Migration } from '@mikro-orm/migrations';

export class Migration20261127192501_canary_reporter extends Migration {
  override name = 'Migration20261127192501_canary_reporter';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "canary_reporter" ("remote_name" varchar(40) not null, "version" varchar(64) not null, "canary_started_at" bigint not null, "window_start" int not null, "reporter" varchar(64) not null, "attempts" int not null default 0, "failures" int not null default 0, primary key ("remote_name", "version", "canary_started_at", "window_start", "reporter"));`,
    );

    this.addSql(
      `alter table "canary_reporter" add constraint "canary_reporter_remote_name_foreign" foreign key ("remote_name") references "remote" ("name") on delete cascade;`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "canary_reporter" cascade;`);
  }
}

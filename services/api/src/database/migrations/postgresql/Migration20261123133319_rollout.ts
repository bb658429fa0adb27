import { Migration } from '@mikro-orm/migrations';

export class Migration20261123133319_rollout extends Migration {
  override name = 'Migration20261123133319_rollout';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "remote_rollout" ("remote_name" varchar(40) not null, "version" varchar(64) not null, "percent" int not null, "roles" jsonb not null, "state" varchar(16) not null, "started_by" varchar(255) not null, "started_at" timestamptz not null, "updated_at" timestamptz not null, "ended_by" varchar(255) null, "ended_at" timestamptz null, "reason" varchar(500) null, primary key ("remote_name"));`,
    );

    this.addSql(
      `alter table "remote_rollout" add constraint "remote_rollout_remote_name_foreign" foreign key ("remote_name") references "remote" ("name") on update cascade on delete cascade;`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "remote_rollout" cascade;`);
  }
}

import { Migration } from '@mikro-orm/migrations';

export class Migration20261123134247_remote_health extends Migration {
  override name = 'Migration20261123134247_remote_health';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "remote_health" ("remote_name" varchar(40) not null, "version" varchar(64) not null, "minute" int not null, "loads" int not null default 0, "failed_download" int not null default 0, "failed_integrity" int not null default 0, "failed_timeout" int not null default 0, "render_errors" int not null default 0, "load_ms_sum" double precision not null default 0, "load_le100" int not null default 0, "load_le300" int not null default 0, "load_le1000" int not null default 0, "load_le3000" int not null default 0, "load_le10000" int not null default 0, "load_slower" int not null default 0, "renders" int not null default 0, "render_ms_sum" double precision not null default 0, "render_le100" int not null default 0, "render_le300" int not null default 0, "render_le1000" int not null default 0, "render_le3000" int not null default 0, "render_le10000" int not null default 0, "render_slower" int not null default 0, "lcp_good" int not null default 0, "lcp_needs_improvement" int not null default 0, "lcp_poor" int not null default 0, "inp_good" int not null default 0, "inp_needs_improvement" int not null default 0, "inp_poor" int not null default 0, "cls_good" int not null default 0, "cls_needs_improvement" int not null default 0, "cls_poor" int not null default 0, primary key ("remote_name", "version", "minute"));`,
    );
    this.addSql(`create index "remote_health_minute_index" on "remote_health" ("minute");`);

    this.addSql(
      `alter table "remote_health" add constraint "remote_health_remote_name_foreign" foreign key ("remote_name") references "remote" ("name") on delete cascade;`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "remote_health" cascade;`);
  }
}

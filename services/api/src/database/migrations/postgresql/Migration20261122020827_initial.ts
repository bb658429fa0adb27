import { Migration } from '@mikro-orm/migrations';

export class Migration20261122020827_initial extends Migration {
  override name = 'Migration20261122020827_initial';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "user_profile" ("id" varchar(255) not null, "username" varchar(255) not null, "email" varchar(320) null, "name" varchar(255) null, "theme" text not null default 'system', "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`,
    );

    this.addSql(
      `alter table "user_profile" add constraint "user_profile_theme_check" check ("theme" in ('system', 'light', 'dark'));`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "user_profile" cascade;`);
  }
}

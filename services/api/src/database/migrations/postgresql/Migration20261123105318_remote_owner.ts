import { Migration } from '@mikro-orm/migrations';

/**
 * Every remote gets an owning deployer client. Existing remotes are the feature teams' (atrium-deployer),
 * except the admin console, which is platform code (atrium-platform). New remotes name theirs when an
 * administrator creates them, so the column keeps no default.
 */
export class Migration20261123105318_remote_owner extends Migration {
  override name = 'Migration20261123105318_remote_owner';

  override up(): void | Promise<void> {
    this.addSql(`alter table "remote" add "owner" varchar(255) not null default 'atrium-deployer';`);
    this.addSql(`update "remote" set "owner" = 'atrium-platform' where "name" = 'admin';`);
    this.addSql(`alter table "remote" alter column "owner" drop default;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "remote" drop column "owner";`);
  }
}

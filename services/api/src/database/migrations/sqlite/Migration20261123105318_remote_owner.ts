import { Migration } from '@mikro-orm/migrations';

/**
 * Every remote gets an owning deployer client. Existing remotes are the feature teams' (atrium-deployer),
 * except the admin console, which is platform code (atrium-platform). SQLite can add a NOT NULL column only
 * with a default, and dropping it would mean rebuilding the table; the API always sets the owner, so the
 * default is never used after this migration.
 */
export class Migration20261123105318_remote_owner extends Migration {
  override name = 'Migration20261123105318_remote_owner';

  override up(): void | Promise<void> {
    this.addSql(`alter table \`remote\` add column \`owner\` text not null default 'atrium-deployer';`);
    this.addSql(`update \`remote\` set \`owner\` = 'atrium-platform' where \`name\` = 'admin';`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table \`remote\` drop column \`owner\`;`);
  }
}

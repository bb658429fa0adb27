import { Migration } from '@mikro-orm/migrations';

export class Migration20261128022257_version_breaking extends Migration {
  override name = 'Migration20261128022257_version_breaking';

  override up(): void | Promise<void> {
    this.addSql(`alter table "remote_version" add "breaking" boolean not null default false;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "remote_version" drop column "breaking";`);
  }
}

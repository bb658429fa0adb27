import { Migration } from '@mikro-orm/migrations';

export class Migration20261123104538_manifest_integrity extends Migration {
  override name = 'Migration20261123104538_manifest_integrity';

  override up(): void | Promise<void> {
    this.addSql(`alter table "remote_version" add "manifest_integrity" varchar(200) null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "remote_version" drop column "manifest_integrity";`);
  }
}

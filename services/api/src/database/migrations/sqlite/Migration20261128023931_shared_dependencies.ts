import { Migration } from '@mikro-orm/migrations';

export class Migration20261128023931_shared_dependencies extends Migration {
  override name = 'Migration20261128023931_shared_dependencies';

  override up(): void | Promise<void> {
    this.addSql(`alter table \`remote_version\` add column \`shared\` json null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table \`remote_version\` drop column \`shared\`;`);
  }
}

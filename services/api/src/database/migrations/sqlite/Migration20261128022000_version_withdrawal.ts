import { Migration } from '@mikro-orm/migrations';

export class Migration20261128022000_version_withdrawal extends Migration {
  override name = 'Migration20261128022000_version_withdrawal';

  override up(): void | Promise<void> {
    this.addSql(`alter table \`remote_version\` add column \`withdrawn_at\` datetime null;`);
    this.addSql(`alter table \`remote_version\` add column \`withdrawn_by\` text null;`);
    this.addSql(`alter table \`remote_version\` add column \`withdrawal_reason\` text null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table \`remote_version\` drop column \`withdrawn_at\`;`);
    this.addSql(`alter table \`remote_version\` drop column \`withdrawn_by\`;`);
    this.addSql(`alter table \`remote_version\` drop column \`withdrawal_reason\`;`);
  }
}

import { Migration } from '@mikro-orm/migrations';

export class Migration20261128022000_version_withdrawal extends Migration {
  override name = 'Migration20261128022000_version_withdrawal';

  override up(): void | Promise<void> {
    this.addSql(
      `alter table "remote_version" add "withdrawn_at" timestamptz null, add "withdrawn_by" varchar(255) null, add "withdrawal_reason" varchar(500) null;`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(
      `alter table "remote_version" drop column "withdrawn_at", drop column "withdrawn_by", drop column "withdrawal_reason";`,
    );
  }
}

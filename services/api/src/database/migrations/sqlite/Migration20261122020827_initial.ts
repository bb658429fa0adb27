import { Migration } from '@mikro-orm/migrations';

export class Migration20261122020827_initial extends Migration {
  override name = 'Migration20261122020827_initial';

  override up(): void | Promise<void> {
    this.addSql(
      `create table \`user_profile\` (\`id\` text not null primary key, \`username\` text not null, \`email\` text null, \`name\` text null, \`theme\` text check (\`theme\` in ('system', 'light', 'dark')) not null default 'system', \`created_at\` datetime not null, \`updated_at\` datetime not null);`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists \`user_profile\`;`);
  }
}

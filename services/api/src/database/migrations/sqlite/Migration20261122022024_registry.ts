import { Migration } from '@mikro-orm/migrations';

export class Migration20261122022024_registry extends Migration {
  override name = 'Migration20261122022024_registry';

  override up(): void | Promise<void> {
    this.addSql(
      `create table \`audit_event\` (\`id\` integer not null primary key autoincrement, \`actor\` text not null, \`action\` text not null, \`target\` text not null, \`details\` json not null, \`occurred_at\` datetime not null);`,
    );
    this.addSql(`create index \`audit_event_occurred_at_index\` on \`audit_event\` (\`occurred_at\`);`);

    this.addSql(
      `create table \`remote\` (\`name\` text not null primary key, \`title\` text not null, \`path\` text not null, \`nav_order\` integer not null default 100, \`required_roles\` json not null, \`created_at\` datetime not null, \`updated_at\` datetime not null);`,
    );
    this.addSql(`create unique index \`remote_path_unique\` on \`remote\` (\`path\`);`);

    this.addSql(
      `create table \`remote_version\` (\`id\` integer not null primary key autoincrement, \`remote_name\` text not null, \`version\` text not null, \`manifest_url\` text not null, \`integrity\` text null, \`published_by\` text not null, \`published_at\` datetime not null, \`active\` integer not null default false, constraint \`remote_version_remote_name_foreign\` foreign key (\`remote_name\`) references \`remote\` (\`name\`) on delete cascade);`,
    );
    this.addSql(`create index \`remote_version_remote_name_index\` on \`remote_version\` (\`remote_name\`);`);
    this.addSql(
      `create unique index \`remote_version_remote_name_version_unique\` on \`remote_version\` (\`remote_name\`, \`version\`);`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists \`audit_event\`;`);
    this.addSql(`drop table if exists \`remote\`;`);
    this.addSql(`drop table if exists \`remote_version\`;`);
  }
}

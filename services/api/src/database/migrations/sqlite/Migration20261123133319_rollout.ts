import { Migration } from '@mikro-orm/migrations';

export class Migration20261123133319_rollout extends Migration {
  override name = 'Migration20261123133319_rollout';

  override up(): void | Promise<void> {
    this.addSql(
      `create table \`remote_rollout\` (\`remote_name\` text not null primary key, \`version\` text not null, \`percent\` integer not null, \`roles\` json not null, \`state\` text not null, \`started_by\` text not null, \`started_at\` datetime not null, \`updated_at\` datetime not null, \`ended_by\` text null, \`ended_at\` datetime null, \`reason\` text null, constraint \`remote_rollout_remote_name_foreign\` foreign key (\`remote_name\`) references \`remote\` (\`name\`) on update cascade on delete cascade);`,
    );
    this.addSql(`create index \`remote_rollout_remote_name_index\` on \`remote_rollout\` (\`remote_name\`);`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists \`remote_rollout\`;`);
  }
}

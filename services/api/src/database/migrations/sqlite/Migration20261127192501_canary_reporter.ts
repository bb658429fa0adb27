import { Migration } from '@mikro-orm/migrations';

export class Migration20261127192501_canary_reporter extends Migration {
  override name = 'Migration20261127192501_canary_reporter';

  override up(): void | Promise<void> {
    this.addSql(
      `create table \`canary_reporter\` (\`remote_name\` text not null, \`version\` text not null, \`canary_started_at\` integer not null, \`window_start\` integer not null, \`reporter\` text not null, \`attempts\` integer not null default 0, \`failures\` integer not null default 0, primary key (\`remote_name\`, \`version\`, \`canary_started_at\`, \`window_start\`, \`reporter\`), constraint \`canary_reporter_remote_name_foreign\` foreign key (\`remote_name\`) references \`remote\` (\`name\`) on delete cascade);`,
    );
    this.addSql(
      `create index \`canary_reporter_remote_name_index\` on \`canary_reporter\` (\`remote_name\`);`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists \`canary_reporter\`;`);
  }
}

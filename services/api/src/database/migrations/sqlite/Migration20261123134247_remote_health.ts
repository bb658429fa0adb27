import { Migration } from '@mikro-orm/migrations';

export class Migration20261123134247_remote_health extends Migration {
  override name = 'Migration20261123134247_remote_health';

  override up(): void | Promise<void> {
    this.addSql(
      `create table \`remote_health\` (\`remote_name\` text not null, \`version\` text not null, \`minute\` integer not null, \`loads\` integer not null default 0, \`failed_download\` integer not null default 0, \`failed_integrity\` integer not null default 0, \`failed_timeout\` integer not null default 0, \`render_errors\` integer not null default 0, \`load_ms_sum\` double not null default 0, \`load_le100\` integer not null default 0, \`load_le300\` integer not null default 0, \`load_le1000\` integer not null default 0, \`load_le3000\` integer not null default 0, \`load_le10000\` integer not null default 0, \`load_slower\` integer not null default 0, \`renders\` integer not null default 0, \`render_ms_sum\` double not null default 0, \`render_le100\` integer not null default 0, \`render_le300\` integer not null default 0, \`render_le1000\` integer not null default 0, \`render_le3000\` integer not null default 0, \`render_le10000\` integer not null default 0, \`render_slower\` integer not null default 0, \`lcp_good\` integer not null default 0, \`lcp_needs_improvement\` integer not null default 0, \`lcp_poor\` integer not null default 0, \`inp_good\` integer not null default 0, \`inp_needs_improvement\` integer not null default 0, \`inp_poor\` integer not null default 0, \`cls_good\` integer not null default 0, \`cls_needs_improvement\` integer not null default 0, \`cls_poor\` integer not null default 0, primary key (\`remote_name\`, \`version\`, \`minute\`), constraint \`remote_health_remote_name_foreign\` foreign key (\`remote_name\`) references \`remote\` (\`name\`) on delete cascade);`,
    );
    this.addSql(`create index \`remote_health_remote_name_index\` on \`remote_health\` (\`remote_name\`);`);
    this.addSql(`create index \`remote_health_minute_index\` on \`remote_health\` (\`minute\`);`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists \`remote_health\`;`);
  }
}

import { Migration } from '@mikro-orm/migrations';

export class Migration20261128030840_replicas extends Migration {
  override name = 'Migration20261128030840_replicas';

  override up(): void | Promise<void> {
    this.addSql(
      `create table \`telemetry_quota\` (\`minute\` integer not null, \`person\` text not null, \`used\` integer not null default 0, primary key (\`minute\`, \`person\`));`,
    );

    this.addSql(
      `create table \`used_dpop_proof\` (\`id\` text not null primary key, \`expires_at\` integer not null);`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists \`telemetry_quota\`;`);
    this.addSql(`drop table if exists \`used_dpop_proof\`;`);
  }
}

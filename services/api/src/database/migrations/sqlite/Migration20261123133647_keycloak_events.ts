import { Migration } from '@mikro-orm/migrations';

export class Migration20261123133647_keycloak_events extends Migration {
  override name = 'Migration20261123133647_keycloak_events';

  override up(): void | Promise<void> {
    this.addSql(
      `create table \`erased_subject\` (\`subject_hash\` text not null primary key, \`anonymous_id\` text not null, \`erased_at\` datetime not null);`,
    );

    this.addSql(
      `create table \`keycloak_event_cursor\` (\`stream\` text check (\`stream\` in ('events', 'admin-events')) not null primary key, \`last_time\` bigint not null, \`last_keys\` json not null, \`updated_at\` datetime not null);`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists \`erased_subject\`;`);
    this.addSql(`drop table if exists \`keycloak_event_cursor\`;`);
  }
}

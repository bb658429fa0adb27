import { Migration } from '@mikro-orm/migrations';

/** Keycloak's events in the audit log: a cursor per stream; deleted accounts known only by a hash. */
export class Migration20261123133647_keycloak_events extends Migration {
  override name = 'Migration20261123133647_keycloak_events';

  override up(): void | Promise<void> {
    this.addSql(
      `create table \`erased_subject\` (\`subject_hash\` text not null primary key, \`anonymous_id\` text not null, \`erased_at\` datetime not null);`,
    );

    this.addSql(
      `create table \`keycloak_event_cursor\` (\`stream\` text check (\`stream\` in ('events', 'admin-events')) not null primary key, \`last_time\` bigint not null, \`last_keys\` json not null, \`updated_at\` datetime not null);`,
    );

    // One row per stream from the start, so that every copy can lock its row (API replicas poll concurrently).
    this.addSql(
      `insert into \`keycloak_event_cursor\` (\`stream\`, \`last_time\`, \`last_keys\`, \`updated_at\`) values ('events', -1, '[]', current_timestamp), ('admin-events', -1, '[]', current_timestamp);`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists \`erased_subject\`;`);
    this.addSql(`drop table if exists \`keycloak_event_cursor\`;`);
  }
}

import { Migration } from '@mikro-orm/migrations';

/**
 * The audit log is read newest first, a page after the last entry seen (keyset pagination), optionally
 * filtered by actor, action or target: one index per filter column followed by the order (occurred_at, id),
 * so any page, however deep, is one range scan. The index on the order replaces the one on occurred_at.
 */
export class Migration20261123134046_audit_keyset extends Migration {
  override name = 'Migration20261123134046_audit_keyset';

  override up(): void | Promise<void> {
    this.addSql(`drop index \`audit_event_occurred_at_index\`;`);
    this.addSql(
      `create index \`audit_event_occurred_at_id_index\` on \`audit_event\` (\`occurred_at\`, \`id\`);`,
    );
    this.addSql(
      `create index \`audit_event_actor_occurred_at_id_index\` on \`audit_event\` (\`actor\`, \`occurred_at\`, \`id\`);`,
    );
    this.addSql(
      `create index \`audit_event_action_occurred_at_id_index\` on \`audit_event\` (\`action\`, \`occurred_at\`, \`id\`);`,
    );
    this.addSql(
      `create index \`audit_event_target_occurred_at_id_index\` on \`audit_event\` (\`target\`, \`occurred_at\`, \`id\`);`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index \`audit_event_occurred_at_id_index\`;`);
    this.addSql(`drop index \`audit_event_actor_occurred_at_id_index\`;`);
    this.addSql(`drop index \`audit_event_action_occurred_at_id_index\`;`);
    this.addSql(`drop index \`audit_event_target_occurred_at_id_index\`;`);
    this.addSql(`create index \`audit_event_occurred_at_index\` on \`audit_event\` (\`occurred_at\`);`);
  }
}

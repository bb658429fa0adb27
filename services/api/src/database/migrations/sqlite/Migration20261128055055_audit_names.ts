import { Migration } from '@mikro-orm/migrations';

/**
 * Who and what an audit entry is about, for the admin console: the person's display name as their token gave it
 * (`actor_name`, from now on; older entries keep only the id) and the remote it concerns (`remote`, its
 * details' `remote`, filled in for older entries too), indexed like the other filters (see the entity).
 */
export class Migration20261128055055_audit_names extends Migration {
  override name = 'Migration20261128055055_audit_names';

  override up(): void | Promise<void> {
    this.addSql(`alter table \`audit_event\` add column \`actor_name\` text null;`);
    this.addSql(`alter table \`audit_event\` add column \`remote\` text null;`);
    // A remote's name: a lowercase letter, then 1-39 lowercase letters or digits (remote-rules.ts).
    this.addSql(
      `update \`audit_event\` set \`remote\` = json_extract(\`details\`, '$.remote') where json_type(\`details\`, '$.remote') = 'text' and length(json_extract(\`details\`, '$.remote')) between 2 and 40 and json_extract(\`details\`, '$.remote') glob '[a-z]*' and json_extract(\`details\`, '$.remote') not glob '*[^a-z0-9]*';`,
    );
    this.addSql(
      `create index \`audit_event_remote_occurred_at_id_index\` on \`audit_event\` (\`remote\`, \`occurred_at\`, \`id\`);`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index \`audit_event_remote_occurred_at_id_index\`;`);
    this.addSql(`alter table \`audit_event\` drop column \`actor_name\`;`);
    this.addSql(`alter table \`audit_event\` drop column \`remote\`;`);
  }
}

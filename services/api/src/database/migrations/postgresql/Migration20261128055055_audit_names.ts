import { Migration } from '@mikro-orm/migrations';

/**
 * Who and what an audit entry is about, for the admin console: the person's display name as their token gave it
 * (`actor_name`, from now on; older entries keep only the id) and the remote it concerns (`remote`, its
 * details' `remote`, filled in for older entries too), indexed like the other filters (see the entity).
 */
export class Migration20261128055055_audit_names extends Migration {
  override name = 'Migration20261128055055_audit_names';

  override up(): void | Promise<void> {
    this.addSql(
      `alter table "audit_event" add "actor_name" varchar(255) null, add "remote" varchar(40) null;`,
    );
    this.addSql(
      `update "audit_event" set "remote" = "details"->>'remote' where "details"->>'remote' ~ '^[a-z][a-z0-9]{1,39}$';`,
    );
    this.addSql(
      `create index "audit_event_remote_occurred_at_id_index" on "audit_event" ("remote", "occurred_at", "id");`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index "audit_event_remote_occurred_at_id_index";`);
    this.addSql(`alter table "audit_event" drop column "actor_name", drop column "remote";`);
  }
}

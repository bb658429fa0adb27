import { Migration } from '@mikro-orm/migrations';

/** A person's own token for Keycloak's account API, sealed, one per Keycloak session (AccountAccess). */
export class Migration20261127200833_account_access extends Migration {
  override name = 'Migration20261127200833_account_access';

  override up(): void | Promise<void> {
    this.addSql(
      `create table \`account_access\` (\`session_id\` text not null primary key, \`subject_hash\` text not null, \`token\` text not null, \`expires_at\` datetime not null);`,
    );
    this.addSql(
      `create index \`account_access_subject_hash_index\` on \`account_access\` (\`subject_hash\`);`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists \`account_access\`;`);
  }
}

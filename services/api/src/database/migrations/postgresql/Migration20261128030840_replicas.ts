import { Migration } from '@mikro-orm/migrations';

export class Migration20261128030840_replicas extends Migration {
  override name = 'Migration20261128030840_replicas';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "telemetry_quota" ("minute" int not null, "person" varchar(64) not null, "used" int not null default 0, primary key ("minute", "person"));`,
    );

    // Edited by hand: UNLOGGED (which the entity cannot say). Used proof ids are worth no WAL: they matter for
    // two minutes, and a crash or a failover to a standby starts them empty (docs/adr/0016-one-api-across-replicas.md).
    this.addSql(
      `create unlogged table "used_dpop_proof" ("id" varchar(22) not null, "expires_at" int not null, primary key ("id"));`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "telemetry_quota" cascade;`);
    this.addSql(`drop table if exists "used_dpop_proof" cascade;`);
  }
}

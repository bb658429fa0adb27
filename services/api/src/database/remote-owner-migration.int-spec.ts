import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MikroORM } from '@mikro-orm/core';
import { afterAll, describe, expect, inject, it } from 'vitest';
import type { DatabaseTarget } from '../config/index.js';
import { adminQuery, databaseUrlFor } from '@atrium/test-support/postgres';
import { ormOptions } from './orm-options.js';

const adminUrl = inject('postgresAdminUrl');

// The migration before the one that adds owners: the schema existing installations have.
const BEFORE_OWNERS = 'Migration20261123104538_manifest_integrity';

/*
 * Existing remotes get an owner when the migration runs: the admin console is platform code
 * (atrium-platform), every other remote the feature teams' (atrium-deployer). Shown on both drivers, with
 * rows written by the previous schema.
 */
describe('the migration that gives every remote an owner', () => {
  const name = `atrium_it_owner_${randomBytes(4).toString('hex')}`;
  const scratch = mkdtempSync(join(tmpdir(), 'atrium-owner-migration-'));

  afterAll(async () => {
    await adminQuery(adminUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    rmSync(scratch, { recursive: true, force: true });
  });

  const targets: Array<[string, () => Promise<DatabaseTarget>]> = [
    [
      'PostgreSQL',
      async () => {
        await adminQuery(adminUrl, `CREATE DATABASE ${name}`);
        return { driver: 'postgresql', url: databaseUrlFor(adminUrl, name) };
      },
    ],
    ['SQLite', () => Promise.resolve({ driver: 'sqlite', path: join(scratch, 'atrium.db') })],
  ];

  it.each(targets)(
    'on %s: admin to atrium-platform, the others to atrium-deployer',
    async (_driver, create) => {
      const orm = await MikroORM.init(ormOptions(await create(), { allowGlobalContext: true }));
      try {
        await orm.migrator.up({ to: BEFORE_OWNERS });
        const connection = orm.em.getConnection();
        for (const [remote, path] of [
          ['admin', '/admin'],
          ['profile', '/profile'],
          ['leave', '/leave'],
        ]) {
          await connection.execute(
            'insert into remote (name, title, path, nav_order, required_roles, created_at, updated_at) values (?, ?, ?, 10, ?, ?, ?)',
            [remote, remote, path, '[]', new Date(), new Date()],
          );
        }

        const applied = await orm.migrator.up();
        expect(applied.map((migration) => migration.name)).toContain('Migration20261123105318_remote_owner');

        const owners = (await connection.execute('select name, owner from remote order by name')) as Array<{
          name: string;
          owner: string;
        }>;
        expect(owners.map((row) => [row.name, row.owner])).toEqual([
          ['admin', 'atrium-platform'],
          ['leave', 'atrium-deployer'],
          ['profile', 'atrium-deployer'],
        ]);
      } finally {
        await orm.close(true);
      }
    },
  );
});

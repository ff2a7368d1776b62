import { Client } from 'pg';
import { entities } from '../src/app/entities';
import { migrationsList } from '../src/db/migrations';
import { ensureDatabaseExists, initOrm, runMigrations } from '../src/db/orm';
import { createLogger } from '../src/logging/logger';
import { databaseUrl, testServerUrl } from './support/env';

describe('migrations', () => {
  const logger = createLogger('silent');
  const name = `vp_mig_${Date.now().toString(36)}`;
  const url = databaseUrl(name);

  afterAll(async () => {
    const admin = new Client({ connectionString: testServerUrl() });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await admin.end();
  });

  it('creates the database and migrates from empty, once, even with concurrent starts', async () => {
    await ensureDatabaseExists(url, logger);
    await ensureDatabaseExists(url, logger); // idempotent
    const orms = await Promise.all([1, 2, 3].map(() => initOrm({ url, poolMax: 2, entities })));
    try {
      const applied = await Promise.all(orms.map((orm) => runMigrations(orm, logger)));
      expect(applied.flat()).toEqual(migrationsList.map((m) => m.name));
      expect(await runMigrations(orms[0], logger)).toEqual([]);
      const tables = await orms[0].em
        .getConnection()
        .execute<{ table_name: string }[]>(
          "select table_name from information_schema.tables where table_schema = 'public' order by table_name",
        );
      expect(tables.map((t) => t.table_name)).toEqual(
        expect.arrayContaining([
          'accounts',
          'api_keys',
          'mikro_orm_migrations',
          'rate_limits',
          'secrets',
          'webhooks',
          'events',
          'deliveries',
          'delivery_attempts',
        ]),
      );
    } finally {
      await Promise.all(orms.map((orm) => orm.close()));
    }
  });
});

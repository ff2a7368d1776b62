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

  it('tools per agent: each existing persona and version is given every tool and MCP server its account had', async () => {
    const orm = await initOrm({ url, poolMax: 2, entities });
    const db = orm.em.getConnection();
    try {
      await orm.getMigrator().down({ to: 'Migration20261129100000CallRecordings' });
      await db.execute(`insert into accounts (id, issuer, subject, plan, created_at, updated_at)
        values ('acct_mig', 'iss', 'sub', 'free', now(), now()), ('acct_none', 'iss', 'sub2', 'free', now(), now())`);
      await db.execute(`insert into tools (id, account_id, environment, name, type, config, parameters, created_at, updated_at) values
        ('tool_b', 'acct_mig', 'live', 'b', 'webhook', '{}', '{}', now() + interval '1 second', now()),
        ('tool_a', 'acct_mig', 'test', 'a', 'webhook', '{}', '{}', now(), now())`);
      await db.execute(`insert into mcp_servers (id, account_id, environment, name, transport, endpoint, auto_connect, created_at, updated_at)
        values ('mcp_x', 'acct_mig', 'test', 'x', 'http', 'https://example.com/mcp', true, now(), now())`);
      await db.execute(`insert into personas (id, account_id, manifest, name, tagline, category, created_at, updated_at) values
        ('persona_old', 'acct_mig', '{"identity":{"name":"Old"}}', 'Old', '', 'other', now(), now()),
        ('persona_bare', 'acct_none', '{}', 'Bare', '', 'other', now(), now())`);
      await db.execute(`insert into persona_versions (persona_id, version, manifest, approved_at)
        values ('persona_old', 1, '{"identity":{"name":"Old v1"}}', now())`);
      await runMigrations(orm, logger);
      const every = [
        { type: 'tool', id: 'tool_a' },
        { type: 'tool', id: 'tool_b' },
        { type: 'mcp_server', id: 'mcp_x' },
      ];
      const [persona] = await db.execute(`select manifest from personas where id = 'persona_old'`);
      expect(persona.manifest).toEqual({ identity: { name: 'Old' }, tools: every });
      const [version] = await db.execute(
        `select manifest from persona_versions where persona_id = 'persona_old'`,
      );
      expect(version.manifest).toEqual({ identity: { name: 'Old v1' }, tools: every });
      const [bare] = await db.execute(`select manifest from personas where id = 'persona_bare'`);
      expect(bare.manifest).toEqual({ tools: [] });
    } finally {
      await orm.close();
    }
  });
});

import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import type { Logger } from 'pino';
import { runOneShot } from './one-shot';
import type { PostgresTarget, TemporalDatabases } from './server-config';
import { TEMPORAL_SCHEMAS, TEMPORAL_SQL_PLUGIN } from './topology';

/** The databases `npm run cluster` uses unless told otherwise. */
export const DEFAULT_TEMPORAL_DATABASES: TemporalDatabases = {
  default: 'temporal_cluster',
  visibility: 'temporal_cluster_visibility',
};

/** The local PostgreSQL server (trust authentication), as `npm start` and the tests use it. */
export const LOCAL_POSTGRES: PostgresTarget = {
  host: '127.0.0.1',
  port: 5432,
  user: 'postgres',
  password: '',
};

/** New, unique database names (for tests): `temporal_cluster_<random>` and its `_visibility`. */
export function freshTemporalDatabases(prefix = 'temporal_cluster'): TemporalDatabases {
  const name = `${prefix}_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  return { default: name, visibility: `${name}_visibility` };
}

function quoteIdentifier(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

async function withMaintenanceDb<T>(postgres: PostgresTarget, fn: (client: Client) => Promise<T>) {
  const client = new Client({
    host: postgres.host,
    port: postgres.port,
    user: postgres.user,
    password: postgres.password,
    database: 'postgres',
    connectionTimeoutMillis: 5_000,
  });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** Creates each database that does not exist yet; returns those it created. */
export async function createMissingDatabases(postgres: PostgresTarget, names: string[]): Promise<string[]> {
  return withMaintenanceDb(postgres, async (client) => {
    const created: string[] = [];
    for (const name of names) {
      const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
      if (found.rowCount) continue;
      try {
        await client.query(`CREATE DATABASE ${quoteIdentifier(name)}`);
        created.push(name);
      } catch (error) {
        if ((error as { code?: string }).code !== '42P04') throw error; // created concurrently
      }
    }
    return created;
  });
}

/**
 * How many Temporal processes heartbeated into `database`'s membership in the last `withinSeconds`:
 * a cluster that stopped (or crashed) moments ago leaves members that a new one tries to join.
 */
export async function recentMembers(opts: {
  postgres: PostgresTarget;
  database: string;
  withinSeconds: number;
}): Promise<number> {
  const client = new Client({ ...opts.postgres, database: opts.database, connectionTimeoutMillis: 5_000 });
  await client.connect();
  try {
    const { rows } = await client.query<{ count: string }>(
      `SELECT count(*) FROM cluster_membership
        WHERE last_heartbeat > (now() AT TIME ZONE 'UTC') - make_interval(secs => $1)`,
      [opts.withinSeconds],
    );
    return Number(rows[0]?.count ?? 0);
  } finally {
    await client.end();
  }
}

/** Drops the two databases (tests clean up the fresh ones they made); the cluster must be stopped. */
export async function dropTemporalDatabases(opts: {
  postgres?: PostgresTarget;
  databases: TemporalDatabases;
}): Promise<void> {
  await withMaintenanceDb(opts.postgres ?? LOCAL_POSTGRES, async (client) => {
    for (const name of [opts.databases.default, opts.databases.visibility]) {
      await client.query(`DROP DATABASE IF EXISTS ${quoteIdentifier(name)} WITH (FORCE)`);
    }
  });
}

/**
 * Creates the persistence and visibility databases when missing, then sets up and updates their
 * schemas with temporal-sql-tool from the schemas embedded in it (`--schema-name`). Idempotent: on
 * existing databases `setup-schema -v 0.0` changes nothing and `update-schema` applies only newer
 * versions. The tool's output goes to `logFile`.
 */
export async function prepareTemporalDatabases(opts: {
  sqlTool: string;
  postgres: PostgresTarget;
  databases: TemporalDatabases;
  logFile: string;
  logger: Logger;
}): Promise<void> {
  const { databases, postgres } = opts;
  const created = await createMissingDatabases(postgres, [databases.default, databases.visibility]);
  if (created.length) opts.logger.info({ databases: created }, 'created the Temporal databases');
  for (const [store, schemaName] of Object.entries(TEMPORAL_SCHEMAS) as [keyof TemporalDatabases, string][]) {
    const database = databases[store];
    await runSqlTool({ ...opts, database, args: ['setup-schema', '-v', '0.0'] });
    await runSqlTool({ ...opts, database, args: ['update-schema', '--schema-name', schemaName] });
  }
  opts.logger.info(databases, 'Temporal schemas are up to date');
}

/** One temporal-sql-tool command; the connection goes in its SQL_* variables (no password in `ps`). */
function runSqlTool(opts: {
  sqlTool: string;
  postgres: PostgresTarget;
  database: string;
  args: string[];
  logFile: string;
}): Promise<void> {
  return runOneShot({
    name: `temporal-sql-tool ${opts.args[0]} on ${opts.database}`,
    command: opts.sqlTool,
    args: opts.args,
    logFile: opts.logFile,
    env: {
      ...process.env,
      SQL_PLUGIN: TEMPORAL_SQL_PLUGIN,
      SQL_HOST: opts.postgres.host,
      SQL_PORT: String(opts.postgres.port),
      SQL_USER: opts.postgres.user,
      SQL_PASSWORD: opts.postgres.password,
      SQL_DATABASE: opts.database,
    },
  });
}

import { Migrator } from '@mikro-orm/migrations';
import { MikroORM, type Options, PostgreSqlDriver } from '@mikro-orm/postgresql';
import { Client } from 'pg';
import type { Logger } from '../logging/logger';
import { migrationsList } from './migrations';

export type Orm = MikroORM;

/** Arbitrary but fixed: serialises migrations when several processes start at once. */
const MIGRATION_LOCK_ID = 72_337_001;

/** The service's entities: the registry at the composition root (src/app/entities.ts) passes them in. */
export type Entities = NonNullable<Options['entities']>;

export function ormOptions(url: string, poolMax: number, entities: Entities): Options {
  return {
    driver: PostgreSqlDriver,
    clientUrl: url,
    entities,
    extensions: [Migrator],
    pool: { min: 0, max: poolMax },
    forceUtcTimezone: true,
    allowGlobalContext: false,
    discovery: { warnWhenNoEntities: true },
    migrations: {
      migrationsList,
      tableName: 'mikro_orm_migrations',
      transactional: true,
      allOrNothing: true,
      snapshot: false,
      silent: true,
    },
  };
}

/** Creates the database named in the URL when the server lacks it (development and tests). */
export async function ensureDatabaseExists(url: string, logger: Logger): Promise<void> {
  const target = new URL(url);
  const database = decodeURIComponent(target.pathname.replace(/^\//, '')) || 'postgres';
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const client = new Client({ connectionString: admin.toString(), connectionTimeoutMillis: 5000 });
  await client.connect();
  try {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
    if (found.rowCount === 0) {
      await client
        .query(`CREATE DATABASE "${database.replace(/"/g, '""')}"`)
        .catch((error: { code?: string }) => {
          if (error.code !== '42P04') throw error; // created concurrently by another process
        });
      logger.info({ database }, 'created database');
    }
  } finally {
    await client.end();
  }
}

export async function initOrm(opts: { url: string; poolMax: number; entities: Entities }): Promise<Orm> {
  return MikroORM.init(ormOptions(opts.url, opts.poolMax, opts.entities));
}

/**
 * Runs pending migrations. With `lock`, a session advisory lock held on a separate connection
 * serialises concurrent starts, so each migration is applied once (the embedded single-session
 * PGlite runs without it).
 */
export async function runMigrations(
  orm: Orm,
  logger: Logger,
  opts: { lock: boolean } = { lock: true },
): Promise<string[]> {
  const lockClient = opts.lock ? new Client({ connectionString: orm.config.get('clientUrl') }) : undefined;
  if (lockClient) {
    await lockClient.connect();
    await lockClient.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_ID]);
  }
  try {
    const applied = await orm.getMigrator().up();
    if (applied.length) logger.info({ migrations: applied.map((m) => m.name) }, 'applied migrations');
    return applied.map((m) => m.name);
  } finally {
    await lockClient?.end().catch(() => undefined);
  }
}

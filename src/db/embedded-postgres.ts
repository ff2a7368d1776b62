import { mkdir, open, readFile, unlink } from 'node:fs/promises';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import { Client } from 'pg';
import type { Logger } from 'pino';

/**
 * Embedded PostgreSQL fallback for development: PGlite (Postgres compiled to WebAssembly,
 * running inside this Node process) served over the wire protocol on 127.0.0.1, so `pg`,
 * knex and MikroORM connect to it like to any server.
 *
 * Facts that shape this module (PGlite 0.5 / pglite-socket 0.2):
 * - PGlite has ONE backend session. The socket server multiplexes client connections over it,
 *   queueing protocol messages and giving one client exclusive use while it is inside an
 *   explicit transaction. Connections beyond the server's limit are refused, not queued.
 * - Session state is shared by every connection: SET, temp tables, named prepared statements,
 *   advisory locks (pg_advisory_lock never blocks), pg_backend_pid().
 * - The interleaving is per message outside explicit transactions: when a client's
 *   Parse/Bind/Execute/Sync batch arrives in several TCP reads (parameters above ~64 KB) while
 *   another connection is busy, the other connection's messages can land in the middle and
 *   corrupt both queries. With one pooled connection this cannot happen, hence
 *   `maxConnections: 1`. The server still accepts a few spare connections for short
 *   side-channels (reachability probes, an advisory-lock client, psql).
 * - Queries run synchronously on the Node event loop: a slow query stalls the whole process.
 * - A unix socket works with `pg` (`postgres://postgres@/postgres?host=<dir>`) but MikroORM
 *   parses `clientUrl` with `new URL()` and ignores `?host=`, so TCP on 127.0.0.1 is used.
 * - There is a single usable database, `postgres`: CREATE DATABASE succeeds but connections
 *   always land in `postgres` whatever database they name.
 * - pgvector ships as a PGlite extension (@electric-sql/pglite-pgvector): loaded here, so the
 *   migration's `create extension vector` succeeds and knowledge retrieval can be hybrid.
 */
export interface EmbeddedPostgres {
  /** postgres:// connection string usable by `pg` and MikroORM's `clientUrl`. */
  url: string;
  /** How many concurrent pg connections the ORM pool may use. */
  maxConnections: number;
  stop(): Promise<void>;
}

/** Connections the ORM pool may hold (see the module comment for why it is one). */
const POOL_CONNECTIONS = 1;
/** Extra connections the server accepts for short-lived side-channels. */
const SPARE_CONNECTIONS = 9;
const LOCK_FILE = 'embedded-postgres.lock';

/** Data directories opened by this process, so a second start in the same process fails fast. */
const openDirs = new Set<string>();

export async function startEmbeddedPostgres(opts: {
  dataDir: string;
  logger: Logger;
  port?: number;
}): Promise<EmbeddedPostgres> {
  const dataDir = path.resolve(opts.dataDir);
  const logger = opts.logger.child({ component: 'embedded-postgres' });
  await mkdir(dataDir, { recursive: true });
  const releaseLock = await acquireDirLock(dataDir);

  let db: PGlite | undefined;
  let server: PGLiteSocketServer | undefined;
  try {
    const startedAt = Date.now();
    db = await PGlite.create({ dataDir, extensions: { vector } });
    server = new PGLiteSocketServer({
      db,
      host: '127.0.0.1',
      port: opts.port ?? 0,
      maxConnections: POOL_CONNECTIONS + SPARE_CONNECTIONS,
    });
    server.addEventListener('error', (event) => {
      logger.warn({ err: (event as CustomEvent<unknown>).detail }, 'embedded postgres socket error');
    });
    await server.start();

    // getServerConn() is "127.0.0.1:<port>" once listening, with the OS-assigned port for port 0.
    const port = Number(server.getServerConn().split(':').pop());
    if (!Number.isInteger(port) || port <= 0)
      throw new Error(`unexpected listen address ${server.getServerConn()}`);
    const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
    logger.info(
      { dataDir, url, ms: Date.now() - startedAt },
      'embedded PostgreSQL (PGlite) started; development only, single session, queries run on the event loop',
    );

    const runningDb = db;
    const runningServer = server;
    let stopping: Promise<void> | undefined;
    return {
      url,
      maxConnections: POOL_CONNECTIONS,
      stop() {
        stopping ??= (async () => {
          try {
            // Close the ORM pool first: open client sockets are cut here.
            await runningServer.stop();
            await runningDb.close();
            logger.info({ dataDir }, 'embedded PostgreSQL stopped');
          } finally {
            await releaseLock();
          }
        })();
        return stopping;
      },
    };
  } catch (error) {
    await server?.stop().catch(() => undefined);
    if (db && !db.closed) await db.close().catch(() => undefined);
    await releaseLock();
    throw error;
  }
}

/**
 * PGlite does not lock its data directory, and two processes writing the same files corrupt
 * them. A lock file with the owner's pid refuses a second owner; a stale lock (dead pid, or
 * our own pid left over from a container restart where we are pid 1 again) is taken over.
 */
async function acquireDirLock(dataDir: string): Promise<() => Promise<void>> {
  if (openDirs.has(dataDir))
    throw new Error(`embedded PostgreSQL already running in this process for ${dataDir}`);
  const lockPath = path.join(dataDir, LOCK_FILE);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const handle = await open(lockPath, 'wx');
      await handle.writeFile(`${process.pid}\n`);
      await handle.close();
      openDirs.add(dataDir);
      let released = false;
      return async () => {
        if (released) return;
        released = true;
        openDirs.delete(dataDir);
        await unlink(lockPath).catch(() => undefined);
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const owner = Number.parseInt(await readFile(lockPath, 'utf8').catch(() => ''), 10);
      if (Number.isInteger(owner) && owner > 0 && owner !== process.pid && isProcessAlive(owner)) {
        throw new Error(
          `embedded PostgreSQL data directory ${dataDir} is in use by process ${owner}; ` +
            'stop it or point DATABASE_URL at a PostgreSQL server',
        );
      }
      await unlink(lockPath).catch(() => undefined);
    }
  }
  throw new Error(`could not lock embedded PostgreSQL data directory ${dataDir}`);
}

function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Whether a PostgreSQL server answers `select 1` at `url` within `timeoutMs`. Never throws. */
export async function isPostgresReachable(url: string, timeoutMs = 1500): Promise<boolean> {
  let client: Client;
  try {
    client = new Client({
      connectionString: url,
      connectionTimeoutMillis: timeoutMs,
      query_timeout: timeoutMs,
    });
  } catch {
    return false; // unparsable URL
  }
  client.on('error', () => undefined); // a late socket error must not crash the process
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), timeoutMs + 250);
  });
  const probe = (async () => {
    try {
      await client.connect();
      await client.query('select 1');
      return true;
    } catch {
      return false;
    }
  })();
  try {
    return await Promise.race([probe, deadline]);
  } finally {
    clearTimeout(timer);
    void client.end().catch(() => undefined);
  }
}

import { ApiError } from './errors';

/** Seconds a client is asked to wait after a 503 caused by a database outage. */
export const DATABASE_RETRY_AFTER_SECONDS = 5;

/** Error codes of a database that cannot be reached or dropped the connection (pg, knex, Node sockets). */
const CONNECTION_ERROR_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
  'EAI_AGAIN',
  '57P01', // admin_shutdown (connections terminated)
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now (starting up, shutting down, recovering)
  '53300', // too_many_connections
]);

/**
 * Messages of the same, from drivers that set no code. knex's "Transaction query already complete"
 * is one: when a transaction's BEGIN fails (its connection was cut), knex still runs the callback,
 * whose first query then fails with that message while the cut itself goes only to the transaction's
 * own promise. The platform never queries a transaction after its end, so here it means the cut.
 */
const CONNECTION_ERROR_MESSAGES =
  /Connection terminated|Connection ended unexpectedly|timeout exceeded when trying to connect|Timeout acquiring a connection|Client has encountered a connection error|Client was closed and is not queryable|Connection is closed|the database system is (starting up|shutting down|in recovery mode)|Transaction query already complete/i;

/**
 * True for errors that mean the database is unreachable rather than that the request is wrong:
 * MikroORM's ConnectionException, knex's pool acquire timeout, pg's socket errors and terminated
 * connections, and SQLSTATE class 08 (connection exception) and 57P0x. Looks through `cause` and
 * AggregateError's `errors` (a refused connection to each resolved address).
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  const pending: unknown[] = [error];
  for (let seen = 0; pending.length > 0 && seen < 20; seen++) {
    const current = pending.pop() as {
      name?: unknown;
      code?: unknown;
      message?: unknown;
      cause?: unknown;
      errors?: unknown;
    } | null;
    if (current === null || typeof current !== 'object') continue;
    if (current instanceof ApiError) return false;
    const code = typeof current.code === 'string' ? current.code : '';
    if (CONNECTION_ERROR_CODES.has(code) || /^08[0-9A-Z]{3}$/.test(code)) return true;
    if (current.name === 'ConnectionException' || current.name === 'KnexTimeoutError') return true;
    if (typeof current.message === 'string' && CONNECTION_ERROR_MESSAGES.test(current.message)) return true;
    if (current.cause) pending.push(current.cause);
    if (Array.isArray(current.errors)) pending.push(...current.errors);
  }
  return false;
}

/** The answer to a request the database's outage stopped: 503, to be retried after DATABASE_RETRY_AFTER_SECONDS. */
export function databaseUnavailable(): ApiError {
  return new ApiError(503, 'SERVICE_UNAVAILABLE', 'The database is unavailable; retry shortly');
}

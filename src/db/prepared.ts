import type { Knex } from 'knex';

/**
 * Runs a named prepared statement on a pooled connection: PostgreSQL parses and plans it once per
 * connection, and no query builder runs per call. For the hottest read paths (API key lookup, the
 * authenticated list benchmarked by bench:api); everything else goes through MikroORM.
 */
export function preparedStatement<Row>(knex: Knex, name: string, text: string) {
  return async (values: unknown[]): Promise<Row[]> => {
    const connection = await knex.client.acquireConnection();
    try {
      const result = await connection.query({ name, text, values });
      return result.rows as Row[];
    } finally {
      await knex.client.releaseConnection(connection);
    }
  };
}

/**
 * preparedStatement for SQL written with `?` placeholders, as knex takes them (numbered `$1`… here,
 * once). The text must be fixed for a given name, and hold no `?` besides placeholders (no jsonb
 * `?` operators).
 */
export function preparedQuery<Row>(knex: Knex, name: string, sql: string) {
  let text = numbered.get(name);
  if (text === undefined) {
    let n = 0;
    text = sql.replace(/\?/g, () => `$${++n}`);
    numbered.set(name, text);
  }
  return preparedStatement<Row>(knex, name, text);
}
const numbered = new Map<string, string>();

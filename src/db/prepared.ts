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

import type { Knex } from 'knex';
import type { Owner } from '../common/owner';
import { preparedQuery } from '../db/prepared';
import { McpServer } from './mcp-server.entity';

/**
 * The environment's MCP servers among `ids` (the ones a persona names), with their stored tool
 * lists, in the order of `ids`: the query a voice session's context embeds, owned here because the
 * mcp_servers table is this area's.
 */
export function agentServersQuery(owner: Owner, ids: string[]): { sql: string; bindings: unknown[] } {
  return {
    sql: 'select id, name, tools, tools_fetched_at from mcp_servers where account_id = ? and environment = ? and id = any(?::text[]) order by array_position(?::text[], id::text)',
    bindings: [owner.accountId, owner.environment, ids, ids],
  };
}

/** What a tool call needs of its server, named (a prepared statement's result type stays fixed). */
const CALL_COLUMNS = `id, account_id, environment, name, transport, endpoint, headers_ciphertext, oauth_token_id,
  updated_at`;

/**
 * The server a tool call goes to, if it is the owner's: one prepared statement, without the query
 * builder (a voice turn's tool call reads it on its hot path). The entity has the columns a call
 * uses (its connection, headers and OAuth token), not the stored tool list.
 */
export async function mcpServerForCall(
  knex: Knex,
  owner: Owner,
  serverId: string,
): Promise<McpServer | null> {
  const [row] = await preparedQuery<Record<string, unknown>>(
    knex,
    'mcp-server-for-call',
    `select ${CALL_COLUMNS} from mcp_servers where id = ? and account_id = ? and environment = ?`,
  )([serverId, owner.accountId, owner.environment]);
  if (!row) return null;
  return Object.assign(new McpServer(), {
    id: row.id as string,
    account: row.account_id as string,
    environment: row.environment as McpServer['environment'],
    name: row.name as string,
    transport: row.transport as McpServer['transport'],
    endpoint: row.endpoint as string,
    headersCiphertext: (row.headers_ciphertext ?? null) as string | null,
    oauthTokenId: (row.oauth_token_id ?? null) as string | null,
    updatedAt: new Date(row.updated_at as string),
  });
}

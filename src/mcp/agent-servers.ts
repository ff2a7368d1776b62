import type { Owner } from '../common/owner';

/**
 * The environment's MCP servers with their stored tool lists, oldest first: the query a voice
 * session's context embeds, owned here because the mcp_servers table is this area's.
 */
export function agentServersQuery(owner: Owner): { sql: string; bindings: unknown[] } {
  return {
    sql: 'select id, name, tools, tools_fetched_at from mcp_servers where account_id = ? and environment = ? order by created_at, id',
    bindings: [owner.accountId, owner.environment],
  };
}

import type { Owner } from '../common/owner';

/** A custom tool as a voice agent is offered it (the row agentToolsQuery reads). */
export interface AgentToolRow {
  id: string;
  name: string;
  description: string | null;
  parameters: Record<string, unknown>;
}

/**
 * The environment's custom tools, oldest first: the query a voice session's context embeds (one
 * statement for the whole context), owned here because the tools table is this area's.
 */
export function agentToolsQuery(owner: Owner): { sql: string; bindings: unknown[] } {
  return {
    sql: 'select id, name, description, parameters from tools where account_id = ? and environment = ? order by created_at, id',
    bindings: [owner.accountId, owner.environment],
  };
}

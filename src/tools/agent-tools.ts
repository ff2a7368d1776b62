import type { Owner } from '../common/owner';

/** A custom tool as a voice agent is offered it (the row agentToolsQuery reads). */
export interface AgentToolRow {
  id: string;
  name: string;
  description: string | null;
  parameters: Record<string, unknown>;
}

/**
 * The environment's custom tools among `ids` (the ones a persona names), in the order of `ids`: the
 * query a voice session's context embeds (one statement for the whole context), owned here because
 * the tools table is this area's.
 */
export function agentToolsQuery(owner: Owner, ids: string[]): { sql: string; bindings: unknown[] } {
  return {
    sql: 'select id, name, description, parameters from tools where account_id = ? and environment = ? and id = any(?::text[]) order by array_position(?::text[], id::text)',
    bindings: [owner.accountId, owner.environment, ids, ids],
  };
}

import type { Knex } from 'knex';
import type { Environment } from '../common/owner';
import type { ChatToolCall } from './agent-context';
import type { AgentToolOutcome } from './turn-types';

/**
 * Tool mocks of a test session (docs/sessions.md "Tool calls"): an agent test keeps its scenario's
 * `mocks` (tool name → result) in `session_tool_mocks` before the first turn, and the session's tool
 * round answers a mocked tool's result without calling the tool (no tool events: nothing ran).
 * Only `test` sessions are looked up, so a live session's tool round never pays for the read.
 */
export async function mockedToolOutcome(
  knex: Knex,
  input: { sessionId: string; owner: { environment: Environment }; call: ChatToolCall },
): Promise<AgentToolOutcome | null> {
  if (input.owner.environment !== 'test') return null;
  const name = input.call.function.name;
  const { rows } = await knex.raw<{ rows: { mocked: boolean; result: unknown }[] }>(
    'select (mocks -> ?) is not null as mocked, mocks -> ? as result from session_tool_mocks where session_id = ?',
    [name, name, input.sessionId],
  );
  if (!rows[0]?.mocked) return null;
  let args: Record<string, unknown> = {};
  try {
    const parsed = JSON.parse(input.call.function.arguments || '{}');
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) args = parsed;
  } catch {
    // the arguments are kept as {} when they are not a JSON object: the mock answers anyway
  }
  const result = rows[0].result;
  return {
    action: {
      type: 'tool',
      tool: name,
      toolId: 'mock',
      arguments: args,
      success: true,
      result,
      durationMs: 0,
    },
    content: JSON.stringify({ result }),
  };
}

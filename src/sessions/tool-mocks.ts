import type { Knex } from 'knex';
import type { Environment } from '../common/owner';
import type { ChatToolCall } from './agent-context';
import type { AgentToolOutcome } from './turn-types';

/**
 * Tool mocks of a test session (docs/sessions.md "Tool calls"): an agent test keeps its scenario's
 * `mocks` (tool name → result) in `session_tool_mocks` before the first turn, and the session's tool
 * round answers a mocked tool's result without calling the tool (no tool events: nothing ran).
 * The turn loads them with its session (`TOOL_MOCKS_SQL`) and sends each call's mock with the round
 * (`mock`: the result, or null when the tool is not mocked); a call sent without (a round from an
 * API that did not load them) is looked up here. Only `test` sessions have mocks.
 */
export type CallMock = { result: unknown } | null;

/** The session's mocks (a JSON object, or null), for the statement that loads a turn's session `s`. */
export const TOOL_MOCKS_SQL = `case when s.environment = 'test'
  then (select mocks from session_tool_mocks where session_id = s.id) end`;

/** A call's mock among the session's mocks (loaded with its session). */
export function mockOf(mocks: Record<string, unknown> | null, call: ChatToolCall): CallMock {
  return mocks && Object.hasOwn(mocks, call.function.name) ? { result: mocks[call.function.name] } : null;
}

/** The outcome of a mocked call, or null when it is not mocked (looked up if the round did not say). */
export async function mockedToolOutcome(
  knex: Knex,
  input: { sessionId: string; owner: { environment: Environment }; call: ChatToolCall; mock?: CallMock },
): Promise<AgentToolOutcome | null> {
  const mock = input.mock === undefined ? await lookUpMock(knex, input) : input.mock;
  return mock ? mockedOutcome(input.call, mock.result) : null;
}

async function lookUpMock(
  knex: Knex,
  input: { sessionId: string; owner: { environment: Environment }; call: ChatToolCall },
): Promise<CallMock> {
  if (input.owner.environment !== 'test') return null;
  const name = input.call.function.name;
  const { rows } = await knex.raw<{ rows: { mocked: boolean; result: unknown }[] }>(
    'select (mocks -> ?) is not null as mocked, mocks -> ? as result from session_tool_mocks where session_id = ?',
    [name, name, input.sessionId],
  );
  return rows[0]?.mocked ? { result: rows[0].result } : null;
}

function mockedOutcome(call: ChatToolCall, result: unknown): AgentToolOutcome {
  let args: Record<string, unknown> = {};
  try {
    const parsed = JSON.parse(call.function.arguments || '{}');
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) args = parsed;
  } catch {
    // the arguments are kept as {} when they are not a JSON object: the mock answers anyway
  }
  return {
    action: {
      type: 'tool',
      tool: call.function.name,
      toolId: 'mock',
      arguments: args,
      success: true,
      result,
      durationMs: 0,
    },
    content: JSON.stringify({ result }),
  };
}

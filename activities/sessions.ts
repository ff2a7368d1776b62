import { type AgentToolCall, runAgentToolOnce } from '../src/sessions/agent-tools';
import type { SessionEndReason } from '../src/sessions/statuses';
import { endSession, recordTurn, type TurnEntry } from '../src/sessions/turn-records';
import type { ActivityDeps } from './deps';

/** A voice session's steps (local activities of voiceSessionWorkflow), each idempotent. */
export function createSessionActivities(deps: ActivityDeps) {
  return {
    /** One tool call of a model round, run at most once (src/sessions/agent-tools.ts). */
    runAgentTool: (input: AgentToolCall) => runAgentToolOnce(deps, input),
    /** Records a turn once, identified by its Workflow Update. */
    recordTurn: (input: TurnEntry) => recordTurn(deps, input),
    endSession: (input: { sessionId: string; reason: SessionEndReason }) => endSession(deps, input),
  };
}

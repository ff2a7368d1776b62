import type { Owner } from '../src/common/owner';
import type { AgentTool, ChatMessage, ChatToolCall } from '../src/sessions/agent-context';
import {
  answerTurn,
  type Caller,
  chatCompletion,
  continueTurn,
  endSession,
  planTurn,
  recordTurn,
  runAgentTool,
  type ToolRound,
  type TurnRecord,
} from '../src/sessions/agent-turn';
import type { SessionEndReason } from '../src/sessions/statuses';
import type { ActivityDeps } from './deps';

/** A voice session's steps (local activities of voiceSessionWorkflow), each idempotent or an answer. */
export function createSessionActivities(deps: ActivityDeps) {
  return {
    planTurn: (input: { sessionId: string; index: number; text: string; startedAt?: number }) =>
      planTurn(deps, input),
    answerTurn: (input: { sessionId: string; index: number; text: string; startedAt?: number }) =>
      answerTurn(deps, input),
    chatCompletion: (input: { messages: ChatMessage[]; tools: AgentTool[] }) => chatCompletion(deps, input),
    runAgentTool: (input: {
      sessionId: string;
      call: ChatToolCall;
      tools: AgentTool[];
      owner?: Owner;
      caller?: Caller;
    }) => runAgentTool(deps, input),
    continueTurn: (input: {
      sessionId: string;
      index: number;
      text: string;
      startedAt: number;
      step: ToolRound;
      tools: AgentTool[];
      owner: Owner;
      caller: Caller;
    }) => continueTurn(deps, input),
    recordTurn: (input: { sessionId: string } & TurnRecord) => recordTurn(deps, input),
    endSession: (input: { sessionId: string; reason: SessionEndReason }) => endSession(deps, input),
  };
}

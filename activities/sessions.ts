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
import { turnAnswers } from '../src/sessions/turn-answers';
import type { ActivityDeps } from './deps';

/** A voice session's steps (local activities of voiceSessionWorkflow), each idempotent or an answer. */
export function createSessionActivities(deps: ActivityDeps) {
  return {
    planTurn: (input: { sessionId: string; index: number; text: string; startedAt?: number }) =>
      planTurn(deps, input),
    /**
     * With `updateId` (the turn's Workflow Update), a turn recorded here is also handed to the API
     * request of this process that waits for that update, if there is one (src/sessions/turn-answers.ts).
     */
    answerTurn: async (input: {
      sessionId: string;
      index: number;
      text: string;
      startedAt?: number;
      updateId?: string;
    }) => {
      const { updateId, ...turn } = input;
      const plan = await answerTurn(deps, turn);
      if (updateId && plan.kind === 'recorded') turnAnswers.deliver(updateId, plan.turn);
      return plan;
    },
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

import { answerTurn, endSession, recordTurn, type TurnEntry } from '../src/sessions/agent-turn';
import type { SessionEndReason } from '../src/sessions/statuses';
import { turnAnswers } from '../src/sessions/turn-answers';
import type { ActivityDeps } from './deps';

/** A voice session's steps (local activities of voiceSessionWorkflow), each idempotent or an answer. */
export function createSessionActivities(deps: ActivityDeps) {
  return {
    /**
     * A whole turn, identified by its Workflow Update (`updateId`). With `answerEarly`, a turn recorded
     * here is also handed to the API request of this process that waits for that update, if there is
     * one (src/sessions/turn-answers.ts).
     */
    answerTurn: async (input: {
      sessionId: string;
      updateId: string;
      text: string;
      startedAt?: number;
      answerEarly?: boolean;
    }) => {
      const { answerEarly, ...turn } = input;
      const plan = await answerTurn(deps, turn);
      if (answerEarly && plan.kind === 'recorded') turnAnswers.deliver(turn.updateId, plan.turn);
      return plan;
    },
    recordTurn: (input: TurnEntry) => recordTurn(deps, input),
    endSession: (input: { sessionId: string; reason: SessionEndReason }) => endSession(deps, input),
  };
}

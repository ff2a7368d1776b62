import type { AppContext } from '../common/context';
import type { Owner } from '../common/owner';
import { conflict, notFound } from '../http/errors';
import { answerTurn } from './turn/answer-turn';
import { TurnHold } from './turn/turn-hold';
import { silentListener } from './turn/turn-listener';
import { claimTurnSession } from './turn/turn-session';
import { recordTurnInWorkflow } from './turn/turn-store';
import { keepClaimRenewed, releaseTurn } from './turn-claims';
import type { TurnRecord } from './turn-types';
import { workflowError } from './workflow-errors';

/**
 * A turn taken by a worker's step holds its session for this long, renewed every third of it while
 * the turn runs: a worker that dies mid-turn stops renewing, and its claim lapses within seconds.
 */
export const STEP_TURN_CLAIM_MS = 15_000;

/**
 * A turn whose id its caller gives (an agent test's turn, src/agent-tests/scenario-steps.ts), taken
 * by a step that runs again when its worker dies. Taken again with the same id, it is the same turn
 * (docs/sessions.md "Concurrent turns"): it takes over its own claim at once, its tool rounds are the
 * same Workflow Updates (so a tool call in flight is not run a second time) and its record is the
 * same update (so the turn is recorded once). Otherwise it is POST /sessions/:id/turns's turn, without
 * audio: the session claimed, the engine's answer, the session's workflow's record.
 */
export async function takeTurnOnce(
  ctx: AppContext,
  owner: Owner,
  turn: { sessionId: string; turnId: string; text: string },
): Promise<TurnRecord> {
  const { sessionId, turnId } = turn;
  const claim = { sessionId, claimId: turnId, ttlMs: STEP_TURN_CLAIM_MS };
  const loaded = await claimTurnSession(ctx, claim);
  if (!loaded)
    throw conflict(`Session ${sessionId} is answering another turn; send the turn once it is answered`);
  const stopRenewing = keepClaimRenewed(ctx, claim);
  // held while the model answers, so that the session's idle timer waits for the turn (the same
  // turn's hold when the step runs again: its id is the turn's)
  const hold = new TurnHold(ctx, sessionId, turnId);
  let recorded: TurnRecord | undefined;
  try {
    const { account, environment } = loaded.session;
    if (account !== owner.accountId || environment !== owner.environment) throw notFound('Session');
    const startedAt = Date.now();
    const signal = new AbortController().signal;
    const answer = await answerTurn(
      ctx,
      { ...turn, startedAt, signal, listener: silentListener, hold },
      loaded,
    );
    // the statement that records the turn also lets the session's next turn in (the claim)
    recorded = await recordTurnInWorkflow(ctx, {
      sessionId,
      turnId,
      ...answer,
      spokenText: answer.reply.text,
      latencyMs: Date.now() - startedAt,
    });
    return recorded;
  } catch (error) {
    await releaseTurn(ctx, claim).catch((failure) =>
      ctx.logger.warn({ err: failure, sessionId }, 'could not release the turn claim; it lapses'),
    );
    // a workflow not found is one still starting (Temporal was down when the session began): retried
    workflowError(error, { id: sessionId, workflowStartedAt: null });
  } finally {
    stopRenewing();
    hold.release(recorded !== undefined);
  }
}

import { randomUUID } from 'node:crypto';
import type { Response } from 'express';
import type { AppContext } from '../../common/context';
import { conflict } from '../../http/errors';
import type { PersonaManifest } from '../../personas';
import type { Session } from '../session.entity';
import { sessionVoiceId } from '../session-stack';
import type { TurnInput, TurnViewShape } from '../sessions.schemas';
import { keepMp3 } from '../stream/recordings';
import { keepClaimRenewed, releaseTurn } from '../turn-claims';
import type { TurnRecord } from '../turn-types';
import { workflowError } from '../workflow-errors';
import { answerTurn } from './answer-turn';
import { TurnHold } from './turn-hold';
import { silentListener } from './turn-listener';
import { claimTurnSession } from './turn-session';
import { recordTurnInWorkflow } from './turn-store';

/**
 * A REST turn holds its session for this long, renewed every third of it while the turn runs (a tool
 * round, a command and the record may each wait UPDATE_WAIT_MS): an API process that dies mid-turn
 * stops renewing, and the session takes its next turn within seconds (docs/sessions.md).
 */
export const REST_TURN_CLAIM_MS = 15_000;

/**
 * POST /sessions/:id/turns, a client of the turn engine that does not stream: the session is claimed
 * for the turn (one turn at a time), the engine answers it (src/sessions/turn/answer-turn.ts), the
 * session's workflow records it, and the answer is the turn as recorded. With `audio`, the reply is
 * also spoken in the persona's voice, as one MP3 (kept as the turn's recording if the session records).
 */
export async function takeTurn(
  ctx: AppContext,
  session: Pick<Session, 'id' | 'workflowStartedAt' | 'recording'>,
  input: TurnInput,
  res?: Response,
): Promise<TurnViewShape> {
  const turnId = randomUUID();
  const claim = { sessionId: session.id, claimId: turnId, ttlMs: REST_TURN_CLAIM_MS };
  const loaded = await claimTurnSession(ctx, claim);
  if (!loaded) {
    throw conflict(
      `Session ${session.id} is answering another turn (or a live stream holds it); send the next turn once it is answered`,
    );
  }
  const stopRenewing = keepClaimRenewed(ctx, claim);
  let turn: TurnRecord | undefined;
  // held while the model answers, so that the session's idle timer waits for the turn
  const hold = new TurnHold(ctx, session.id, turnId);
  try {
    const startedAt = Date.now();
    const request = {
      sessionId: session.id,
      turnId,
      text: input.text,
      startedAt,
      signal: new AbortController().signal,
      listener: silentListener,
      hold,
    };
    const answer = await answerTurn(ctx, request, loaded);
    // the statement that records the turn also lets the session's next turn in (the claim)
    turn = await recordTurnInWorkflow(ctx, {
      sessionId: session.id,
      turnId,
      ...answer,
      spokenText: answer.reply.text,
      latencyMs: Date.now() - startedAt,
    });
  } catch (error) {
    await releaseTurn(ctx, claim).catch((failure) =>
      ctx.logger.warn({ err: failure, sessionId: session.id }, 'could not release the turn claim; it lapses'),
    );
    workflowError(error, session, res);
  } finally {
    stopRenewing();
    hold.release(turn !== undefined);
  }
  return input.audio ? withSpokenReply(ctx, session, loaded.manifest, turn) : turn;
}

/** The turn with its reply spoken in the voice of the session's persona version (an MP3 data URL), when synthesis works. */
async function withSpokenReply(
  ctx: AppContext,
  session: Pick<Session, 'id' | 'recording'>,
  manifest: PersonaManifest,
  turn: TurnRecord,
): Promise<TurnViewShape> {
  const voiceId = sessionVoiceId(manifest);
  try {
    const spoken = await ctx.speech.speak(voiceId, turn.reply.text.slice(0, 500));
    if (!spoken) return turn;
    const { audioUrl, duration } = spoken.preview;
    if (session.recording && audioUrl.startsWith('data:audio/mpeg;base64,')) {
      const mp3 = Buffer.from(audioUrl.slice(audioUrl.indexOf(',') + 1), 'base64');
      await keepMp3(ctx, session.id, turn.index, 'agent', mp3, Math.round(duration * 1000));
    }
    return { ...turn, reply: { ...turn.reply, audioUrl } };
  } catch (error) {
    ctx.logger.warn({ err: error, sessionId: session.id }, 'could not synthesize the reply');
  }
  return turn;
}

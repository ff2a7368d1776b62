import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { ServiceError, WorkflowNotFoundError, WorkflowUpdateFailedError } from '@temporalio/client';
import type { Response } from 'express';
import { endUpdate, turnUpdate } from '../../workflows/messages';
import type { PlatformAuth } from '../auth/platform-auth';
import type { AppContext } from '../common/context';
import { findOwned } from '../common/owned';
import type { Owner } from '../common/owner';
import { emitEvent } from '../events/emit';
import { ApiError, conflict, notFound } from '../http/errors';
import { Persona } from '../personas';
import { buildAgentContext } from './agent-context';
import { endSession as recordSessionEnd, turnRecord } from './agent-turn';
import { Session, SessionTurn } from './session.entity';
import { startSessionWorkflow } from './session-workflows';
import type { ListSessionsInput, StartSessionInput, TurnInput, TurnViewShape } from './sessions.schemas';
import { turnAnswers } from './turn-answers';
import { claimTurn, releaseTurn } from './turn-claims';
import type { TurnRecord } from './turn-types';

const iso = (d: Date | null | undefined) => (d ? d.toISOString() : null);

export function sessionView(s: Session) {
  return {
    id: s.id,
    status: s.status,
    personaId: s.personaId,
    userId: s.userId,
    metadata: s.metadata,
    greeting: s.greeting,
    startedAt: s.startedAt.toISOString(),
    endedAt: iso(s.endedAt),
    endReason: s.endReason ?? null,
    turnCount: s.turnCount,
  };
}

export const findSession = (em: EntityManager, owner: Owner, id: string) =>
  findOwned(em, Session, owner, id, 'Session');

/**
 * POST /sessions: the session row and `session.started` commit together, then the session's workflow
 * starts (if Temporal cannot be reached, the dispatcher starts it later). A `pk_live_` key may use
 * only published personas; a `pk_test_` key any persona of the account, drafts included.
 */
export async function startSession(
  ctx: AppContext,
  em: EntityManager,
  auth: PlatformAuth,
  input: StartSessionInput,
) {
  const persona = await em.findOne(Persona, { id: input.personaId, account: auth.accountId });
  if (!persona) throw notFound('Persona');
  if (auth.environment === 'live' && persona.status !== 'published') {
    throw conflict(
      `Persona ${persona.id} is ${persona.status}: live keys can start sessions only with published personas (use a pk_test_ key to try drafts)`,
    );
  }
  const greeting =
    persona.manifest.behaviors?.greetings?.find((g) => g.trim().length > 0) ??
    `Hi, this is ${persona.name || 'your assistant'}. How can I help?`;
  const session = em.create(Session, {
    account: auth.accountId,
    environment: auth.environment,
    personaId: persona.id,
    userId: input.userId,
    metadata: input.metadata ?? {},
    greeting,
    startedAt: new Date(),
  });
  emitEvent(em, {
    accountId: auth.accountId,
    environment: auth.environment,
    type: 'session.started',
    personaId: persona.id,
    data: { sessionId: session.id, userId: session.userId, personaId: persona.id },
  });
  await em.flush();
  try {
    await startSessionWorkflow(ctx.temporalEager ?? ctx.temporal, ctx.config, {
      id: session.id,
      accountId: auth.accountId,
      personaId: persona.id,
      userId: session.userId,
    });
    await em.nativeUpdate(Session, { id: session.id }, { workflowStartedAt: new Date() });
  } catch (error) {
    ctx.logger.warn(
      { err: error, sessionId: session.id },
      'session workflow not started yet; the dispatcher will',
    );
  }
  return sessionView(session);
}

export async function listSessions(em: EntityManager, owner: Owner, query: ListSessionsInput) {
  const where = {
    account: owner.accountId,
    environment: owner.environment,
    ...(query.status ? { status: query.status } : {}),
    ...(query.personaId ? { personaId: query.personaId } : {}),
    ...(query.userId ? { userId: query.userId } : {}),
  };
  const [rows, total] = await em.findAndCount(Session, where, {
    orderBy: { startedAt: 'desc', id: 'desc' },
    limit: query.limit,
    offset: query.offset,
  });
  return { data: rows.map(sessionView), total };
}

export async function getSession(em: EntityManager, owner: Owner, id: string) {
  const session = await findSession(em, owner, id);
  const turns = await em.find(SessionTurn, { sessionId: id }, { orderBy: { index: 'asc' } });
  return { ...sessionView(session), transcript: turns.map(turnRecord) };
}

/** Sessions this process saw active, with what never changes of them (bounded; oldest out first). */
const activeSessions = new Map<string, { accountId: string; environment: string; personaId: string }>();
const ACTIVE_SESSIONS_KEPT = 10_000;

function rememberActive(session: Session) {
  const known = {
    accountId: session.account,
    environment: session.environment,
    personaId: session.personaId,
  };
  if (activeSessions.size >= ACTIVE_SESSIONS_KEPT) {
    const oldest = activeSessions.keys().next().value;
    if (oldest !== undefined) activeSessions.delete(oldest);
  }
  activeSessions.set(session.id, known);
  return known;
}

/** How long a turn's answer is awaited before the caller is told to look for it later. */
const TURN_WAIT_MS = 60_000;
const RETRY_AFTER_SECONDS = 2;
/** A turn's claim outlives its wait by this much, then lapses (its API process died mid-turn). */
const TURN_CLAIM_MARGIN_MS = 10_000;

function unavailable(res: Response | undefined, message: string): ApiError {
  res?.setHeader('Retry-After', String(RETRY_AFTER_SECONDS));
  return new ApiError(503, 'SERVICE_UNAVAILABLE', message);
}

/** Maps what can go wrong talking to the session's workflow onto the API's errors. */
function workflowError(error: unknown, session: Session, res?: Response): never {
  if (error instanceof ApiError) throw error;
  if (error instanceof WorkflowUpdateFailedError) {
    const reason = error.cause?.message ?? error.message;
    if (/ended/i.test(reason)) throw conflict(`Session ${session.id} has ended`);
    throw conflict(`The session refused the turn: ${reason}`);
  }
  if (error instanceof WorkflowNotFoundError) {
    // committed, but its workflow is not started yet (Temporal was down): the dispatcher starts it
    if (!session.workflowStartedAt)
      throw unavailable(res, `Session ${session.id} is starting; retry shortly`);
    throw conflict(`Session ${session.id} has ended`);
  }
  if (error instanceof ServiceError || (error as Error)?.name === 'AbortError') {
    throw unavailable(
      res,
      'The session did not answer in time (Temporal or its workers unavailable); retry shortly',
    );
  }
  throw error;
}

/**
 * Sends the turn to the session's workflow as Workflow Update `updateId`, answered by whichever comes
 * first: the update's result, or the turn's record committed by a step of this process
 * (src/sessions/turn-answers.ts); both are the same turn.
 */
async function sendTurn(ctx: AppContext, id: string, text: string, updateId: string): Promise<TurnRecord> {
  // the client's connection, not a worker's native one: that one ignores abort signals and retries
  // while Temporal is down, where a turn must be answered 503 at once
  const temporal = ctx.temporal;
  const early = turnAnswers.expect(updateId);
  try {
    const update = temporal.withAbortSignal(AbortSignal.timeout(TURN_WAIT_MS), () =>
      temporal.workflow.getHandle(id).executeUpdate(turnUpdate, { args: [{ text }], updateId }),
    );
    // answered early, the update still finishes (with the same record); nothing to tell anyone then
    update.catch((error) =>
      ctx.logger.debug({ err: error, sessionId: id, updateId }, 'turn update ended with an error'),
    );
    return await Promise.race([update, early.answered]);
  } finally {
    early.done();
  }
}

/**
 * POST /sessions/:id/turns: the turn goes to the session's workflow as a Workflow Update and is
 * answered once the agent replied. With `audio`, the reply is also spoken in the persona's voice.
 */
export async function takeTurn(
  ctx: AppContext,
  em: EntityManager,
  owner: Owner,
  id: string,
  input: TurnInput,
  res?: Response,
): Promise<TurnViewShape> {
  // a session seen active and owned by this caller is not read again: its owner and persona never
  // change, and its workflow refuses turns once it has ended (409 as below)
  let session: Session | undefined;
  let known = activeSessions.get(id);
  if (!known || known.accountId !== owner.accountId || known.environment !== owner.environment) {
    session = await findSession(em, owner, id);
    if (session.status !== 'active') throw conflict(`Session ${id} has ended`);
    known = rememberActive(session);
  }
  // one turn at a time: the update's id is the turn's identity, and its claim on the session
  const updateId = randomUUID();
  const claim = { sessionId: id, claimId: updateId, ttlMs: TURN_WAIT_MS + TURN_CLAIM_MARGIN_MS };
  if (!(await claimTurn(ctx, claim))) {
    throw conflict(`Session ${id} is answering another turn; send the next turn once it is answered`);
  }
  let turn: TurnRecord;
  try {
    // the turn's record lets the session's next turn in (in the statement that records it)
    turn = await sendTurn(ctx, id, input.text, updateId);
  } catch (error) {
    await releaseTurn(ctx, claim).catch((failure) =>
      ctx.logger.warn({ err: failure, sessionId: id }, 'could not release the turn claim; it lapses'),
    );
    activeSessions.delete(id);
    workflowError(error, session ?? (await findSession(em, owner, id)), res);
  }
  if (!input.audio) return turn;
  const persona = await em.findOne(Persona, { id: known.personaId });
  const voiceId = persona?.manifest.voice?.voice_id ?? 'espeak-en-us-aria';
  try {
    const spoken = await ctx.speech.speak(voiceId, turn.reply.text.slice(0, 500));
    if (spoken) return { ...turn, reply: { ...turn.reply, audioUrl: spoken.preview.audioUrl } };
  } catch (error) {
    ctx.logger.warn({ err: error, sessionId: id }, 'could not synthesize the reply');
  }
  return turn;
}

/**
 * POST /sessions/:id/end: ends the session through its workflow (idempotent). A session whose
 * workflow never started (Temporal was down) is ended here, and the dispatcher then never starts it.
 */
export async function endSession(
  ctx: AppContext,
  em: EntityManager,
  owner: Owner,
  id: string,
  res?: Response,
) {
  const session = await findSession(em, owner, id);
  activeSessions.delete(id);
  if (session.status === 'active') {
    try {
      await ctx.temporal.withAbortSignal(AbortSignal.timeout(TURN_WAIT_MS), () =>
        ctx.temporal.workflow.getHandle(id).executeUpdate(endUpdate),
      );
    } catch (error) {
      if (error instanceof WorkflowNotFoundError && !session.workflowStartedAt) {
        await recordSessionEnd(ctx, { sessionId: id, reason: 'ended' });
      } else if (!(error instanceof WorkflowNotFoundError || error instanceof WorkflowUpdateFailedError)) {
        workflowError(error, session, res);
      }
    }
  }
  return sessionView(await em.refreshOrFail(session));
}

/** GET /sessions/:id/context: exactly what the next turn sends to the model (besides the caller's words). */
export async function sessionContext(ctx: AppContext, em: EntityManager, owner: Owner, id: string) {
  const session = await findSession(em, owner, id);
  const context = await buildAgentContext(ctx, em, session);
  return {
    system: context.system,
    tools: context.tools.map(({ name, description, parameters }) => ({ name, description, parameters })),
    history: context.history.map((m) => ({
      role: m.role as 'user' | 'assistant',
      content: String(m.content),
    })),
  };
}

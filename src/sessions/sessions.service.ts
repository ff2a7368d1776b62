import type { EntityManager } from '@mikro-orm/postgresql';
import { WorkflowNotFoundError, WorkflowUpdateFailedError } from '@temporalio/client';
import type { Response } from 'express';
import { endUpdate } from '../../workflows/messages';
import type { PlatformAuth } from '../auth/platform-auth';
import type { AppContext } from '../common/context';
import { findOwned } from '../common/owned';
import type { Owner } from '../common/owner';
import { emitEvent } from '../events/emit';
import { conflict, notFound } from '../http/errors';
import { personaForSession } from '../personas';
import { buildAgentContext } from './agent-context';
import { Session, SessionTurn } from './session.entity';
import { greetingOf } from './session-stack';
import { startSessionWorkflow } from './session-workflows';
import type { StartSessionInput, TurnInput, TurnViewShape } from './sessions.schemas';
import { issueClientToken } from './stream/client-token';
import { type RecordingSide, readTurnAudio } from './stream/recordings';
import { takeTurn as takeRestTurn } from './turn/rest-turn';
import { UPDATE_WAIT_MS } from './turn/turn-store';
import { endSession as recordSessionEnd, turnRecord } from './turn-records';
import { workflowError } from './workflow-errors';

const iso = (d: Date | null | undefined) => (d ? d.toISOString() : null);

export function sessionView(s: Session) {
  return {
    id: s.id,
    status: s.status,
    personaId: s.personaId,
    personaVersion: s.personaVersion ?? null,
    userId: s.userId,
    metadata: s.metadata,
    greeting: s.greeting,
    startedAt: s.startedAt.toISOString(),
    endedAt: iso(s.endedAt),
    endReason: s.endReason ?? null,
    turnCount: s.turnCount,
    recording: s.recording,
    testRunId: s.testRunId ?? null,
  };
}

export const findSession = (em: EntityManager, owner: Owner, id: string) =>
  findOwned(em, Session, owner, id, 'Session');

/** Resolves when the session is the owner's, else 404 (for ids other areas take in a body). */
export async function checkSessionOwned(em: EntityManager, owner: Owner, id: string): Promise<void> {
  await findSession(em, owner, id);
}

/**
 * POST /sessions: the session row and `session.started` commit together, then the session's workflow
 * starts (if Temporal cannot be reached, the dispatcher starts it later). A `pk_live_` key may use
 * only published personas and runs the live version; a `pk_test_` key any persona of the account,
 * its working draft or a version it names. The session keeps that version to its end.
 */
export async function startSession(
  ctx: AppContext,
  em: EntityManager,
  auth: PlatformAuth,
  input: StartSessionInput,
  /** An agent-test run's session is marked with its run (docs/sessions.md "Test-run sessions"). */
  options: { testRunId?: string } = {},
) {
  const { persona, version, manifest } = await personaForSession(em, {
    accountId: auth.accountId,
    environment: auth.environment,
    personaId: input.personaId,
    version: input.personaVersion,
  });
  const greeting = greetingOf(manifest);
  const session = em.create(Session, {
    account: auth.accountId,
    environment: auth.environment,
    personaId: persona.id,
    personaVersion: version,
    userId: input.userId,
    metadata: input.metadata ?? {},
    greeting,
    startedAt: new Date(),
    recording: input.recording ?? manifest.behaviors?.record_calls ?? false,
    testRunId: options.testRunId ?? null,
  });
  emitEvent(em, {
    accountId: auth.accountId,
    environment: auth.environment,
    type: 'session.started',
    personaId: persona.id,
    data: {
      sessionId: session.id,
      userId: session.userId,
      personaId: persona.id,
      ...(options.testRunId ? { testRunId: options.testRunId } : {}),
    },
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

export async function getSession(em: EntityManager, owner: Owner, id: string) {
  const session = await findSession(em, owner, id);
  return { ...sessionView(session), transcript: await sessionTranscript(em, id) };
}

/** A session's transcript: its turns in order, as GET /sessions/:id (and its transcript link) shows them. */
export async function sessionTranscript(em: EntityManager, id: string) {
  const turns = await em.find(SessionTurn, { sessionId: id }, { orderBy: { index: 'asc' } });
  return turns.map(turnRecord);
}

/** Sessions this process saw active, with what never changes of them (bounded; oldest out first). */
const activeSessions = new Map<
  string,
  {
    accountId: string;
    environment: string;
    workflowStartedAt: Date | null;
    recording: boolean;
  }
>();
const ACTIVE_SESSIONS_KEPT = 10_000;

/** A deleted session is forgotten here too, so a turn sent to it later reads its row (none: 404). */
export function forgetActiveSession(id: string): void {
  activeSessions.delete(id);
}

function rememberActive(session: Session) {
  const known = {
    accountId: session.account,
    environment: session.environment,
    workflowStartedAt: session.workflowStartedAt ?? null,
    recording: session.recording,
  };
  if (activeSessions.size >= ACTIVE_SESSIONS_KEPT) {
    const oldest = activeSessions.keys().next().value;
    if (oldest !== undefined) activeSessions.delete(oldest);
  }
  if (known.workflowStartedAt) activeSessions.set(session.id, known);
  return known;
}

/**
 * POST /sessions/:id/turns (src/sessions/turn/rest-turn.ts). A session seen active and owned by this
 * caller is not read again: its owner never changes, and a turn on an ended session is
 * refused (409) by the turn engine or the session's workflow.
 */
export async function takeTurn(
  ctx: AppContext,
  em: EntityManager,
  owner: Owner,
  id: string,
  input: TurnInput,
  res?: Response,
): Promise<TurnViewShape> {
  let known = activeSessions.get(id);
  if (!known || known.accountId !== owner.accountId || known.environment !== owner.environment) {
    const session = await findSession(em, owner, id);
    if (session.status !== 'active') throw conflict(`Session ${id} has ended`);
    known = rememberActive(session);
  }
  try {
    return await takeRestTurn(
      ctx,
      {
        id,
        workflowStartedAt: known.workflowStartedAt,
        recording: known.recording,
      },
      input,
      res,
    );
  } catch (error) {
    activeSessions.delete(id);
    throw error;
  }
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
      await ctx.temporal.withAbortSignal(AbortSignal.timeout(UPDATE_WAIT_MS), () =>
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
    conversation: context.conversation,
    tools: context.tools.map(({ name, description, parameters }) => ({ name, description, parameters })),
    history: context.history.map((m) => ({
      role: m.role as 'user' | 'assistant',
      content: String(m.content),
    })),
  };
}

/** POST /sessions/:id/client-token: a browser's key to this one session's stream, for 5 minutes. */
export async function clientToken(ctx: AppContext, em: EntityManager, owner: Owner, id: string) {
  const session = await findSession(em, owner, id);
  if (session.status !== 'active') throw conflict(`Session ${id} has ended`);
  return issueClientToken(ctx.encryptor, owner, id);
}

/** GET /sessions/:id/turns/:index/audio: one side of a recorded turn, as MP3. */
export async function turnAudio(
  em: EntityManager,
  owner: Owner,
  id: string,
  index: number,
  side: RecordingSide,
  res: Response,
): Promise<void> {
  await findSession(em, owner, id);
  const found = await readTurnAudio(em.getConnection().getKnex(), id, index, side);
  if (!found) throw notFound('Recording');
  res.status(200).type(found.mime).setHeader('Cache-Control', 'private, max-age=3600');
  res.send(found.audio);
}

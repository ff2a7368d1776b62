import type { EntityManager } from '@mikro-orm/postgresql';
import { WorkflowNotFoundError, WorkflowUpdateFailedError } from '@temporalio/client';
import type { Response } from 'express';
import { hangupUpdate } from '../../../workflows/messages';
import type { PlatformAuth } from '../../auth/platform-auth';
import type { AppContext } from '../../common/context';
import { findOwned, listOwned } from '../../common/owned';
import type { Owner } from '../../common/owner';
import { ApiError, conflict, notFound } from '../../http/errors';
import { personaForSession } from '../../personas';
import { findPhoneNumber } from '../phone-numbers/phone-numbers.service';
import { sendCallRecording } from '../recordings/call-recordings';
import { Call } from './call.entity';
import { checkCallCaps, checkDestination } from './call-limits';
import { finishCall } from './call-records';
import { isTerminal } from './call-statuses';
import { startCallWorkflow } from './call-workflows';
import { DEFAULT_MAX_DURATION_S, type ListCallsInput, type PlaceCallInput } from './calls.schemas';

/** How long POST /calls/:id/hangup waits for the call's workflow to take the hang-up. */
const HANGUP_WAIT_MS = 30_000;

/** The call as the API shows it. */
export function callView(c: Call) {
  return {
    id: c.id,
    status: c.status,
    direction: c.direction,
    from: c.from,
    to: c.to,
    phoneNumberId: c.phoneNumberId,
    personaId: c.personaId,
    sessionId: c.sessionId,
    timeline: c.timeline,
    durationS: c.durationS,
    maxDurationS: c.maxDurationS,
    endedReason: c.endedReason,
    carrierCallId: c.carrierCallId,
    recordingUrl: c.recordedAt ? `/api/v2/developers/calls/${c.id}/recording` : null,
    createdAt: c.createdAt.toISOString(),
    updatedAt: c.updatedAt.toISOString(),
  };
}

export const findCall = (em: EntityManager, owner: Owner, id: string) =>
  findOwned(em, Call, owner, id, 'Call');

/** The owner's calls not yet ended, and those made in the last 24 hours (the plan's caps count them). */
async function callCounts(em: EntityManager, owner: Owner) {
  const rows = await em.getConnection().execute<{ unfinished: number; last_day: number }[]>(
    `select count(*) filter (where status in ('queued', 'ringing', 'in-progress'))::int as unfinished,
            count(*) filter (where created_at > now() - interval '24 hours')::int as last_day
       from calls where account_id = ? and environment = ? and direction = 'outbound'`,
    [owner.accountId, owner.environment],
    'all',
    em.getTransactionContext(),
  );
  return { unfinished: rows[0]?.unfinished ?? 0, lastDay: rows[0]?.last_day ?? 0 };
}

/**
 * POST /calls: checks the number, its persona (a live number needs a live one), the destination
 * (toll fraud) and the plan's caps, then commits the call `queued` and starts its workflow, which
 * places it. Any refusal places nothing. If Temporal cannot be reached, the dispatcher starts the
 * workflow later.
 */
export async function placeCall(
  ctx: AppContext,
  em: EntityManager,
  auth: PlatformAuth,
  input: PlaceCallInput,
) {
  const number = await findPhoneNumber(em, auth, input.phoneNumberId);
  const personaId = input.personaId ?? number.personaId;
  if (!personaId) throw conflict(`Phone number ${number.id} has no persona: name one with personaId`);
  const { manifest } = await personaForSession(em, {
    accountId: auth.accountId,
    environment: auth.environment,
    personaId,
  });
  checkDestination(auth.accountId, number.number, input.to);
  const call = await em.transactional(async (tem) => {
    await tem
      .getConnection()
      .execute(
        'select pg_advisory_xact_lock(hashtext(?))',
        [`calls:${auth.accountId}:${auth.environment}`],
        'all',
        tem.getTransactionContext(),
      );
    checkCallCaps(auth.plan, await callCounts(tem, auth));
    return tem.create(Call, {
      account: auth.accountId,
      environment: auth.environment,
      phoneNumberId: number.id,
      personaId,
      direction: 'outbound',
      from: number.number,
      to: input.to,
      status: 'queued',
      timeline: [{ status: 'queued', at: new Date().toISOString() }],
      variables: input.variables ?? {},
      maxDurationS: input.maxDurationS ?? manifest.telephony?.maxDurationS ?? DEFAULT_MAX_DURATION_S,
    });
  });
  try {
    await startCallWorkflow(ctx.temporal, ctx.config, {
      id: call.id,
      accountId: auth.accountId,
      phoneNumberId: call.phoneNumberId,
      personaId,
      direction: 'outbound',
      status: 'queued',
      maxDurationS: call.maxDurationS,
    });
    await em.nativeUpdate(Call, { id: call.id }, { workflowStartedAt: new Date() });
  } catch (error) {
    ctx.logger.warn({ err: error, callId: call.id }, 'call workflow not started yet; the dispatcher will');
  }
  return callView(call);
}

export async function listCalls(em: EntityManager, owner: Owner, query: ListCallsInput) {
  const where: Record<string, unknown> = {};
  if (query.status) where.status = query.status;
  if (query.direction) where.direction = query.direction;
  if (query.phoneNumberId) where.phoneNumberId = query.phoneNumberId;
  const { items, total } = await listOwned(em, Call, owner, query, where);
  return { data: items.map(callView), total };
}

export async function getCall(em: EntityManager, owner: Owner, id: string) {
  return callView(await findCall(em, owner, id));
}

/** GET /calls/:id/recording: the call's two-channel WAV; 404 when it has none. */
export async function sendRecording(em: EntityManager, owner: Owner, id: string, res: Response) {
  await findCall(em, owner, id);
  if (!(await sendCallRecording(em.getConnection().getKnex(), id, res))) throw notFound('Recording');
}

/**
 * POST /calls/:id/hangup: hangs up through the call's workflow, which asks the carrier; a call not
 * placed yet is canceled (here, when its workflow never started). An ended call answers as it is
 * (idempotent).
 */
export async function hangUpCall(ctx: AppContext, em: EntityManager, owner: Owner, id: string) {
  const call = await findCall(em, owner, id);
  if (isTerminal(call.status)) return callView(call);
  try {
    await ctx.temporal.withAbortSignal(AbortSignal.timeout(HANGUP_WAIT_MS), () =>
      ctx.temporal.workflow.getHandle(id).executeUpdate(hangupUpdate, { args: [{ reason: 'hangup' }] }),
    );
  } catch (error) {
    if (error instanceof WorkflowNotFoundError && !call.workflowStartedAt && !call.placingStartedAt) {
      // its workflow never started (Temporal was down): ended here, and the dispatcher never starts it
      await finishCall(ctx, {
        callId: id,
        status: 'canceled',
        endedReason: 'hangup',
        at: new Date().toISOString(),
      });
      return callView(await em.refreshOrFail(call));
    }
    if (error instanceof WorkflowNotFoundError || error instanceof WorkflowUpdateFailedError) {
      return callView(await em.refreshOrFail(call));
    }
    throw new ApiError(503, 'SERVICE_UNAVAILABLE', 'The call could not be hung up now; try again');
  }
  return callView(await em.refreshOrFail(call));
}

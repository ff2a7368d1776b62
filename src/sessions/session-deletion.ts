import type { EntityManager } from '@mikro-orm/postgresql';
import { isGrpcServiceError } from '@temporalio/client';
import type { AppContext } from '../common/context';
import type { Owner } from '../common/owner';
import { conflict } from '../http/errors';
import { findSession, forgetActiveSession } from './sessions.service';

/** How long the API waits for Temporal to accept the deletion of a session's workflow history. */
const HISTORY_DELETE_WAIT_MS = 5_000;
/** gRPC NOT_FOUND: the session's workflow never started, or its history is gone already. */
const GRPC_NOT_FOUND = 5;

/**
 * DELETE /sessions/:id (docs/sessions.md "Deleting a session"): an ended session goes in one
 * statement, and with it (foreign keys, on delete cascade) its turns, recordings, tool calls, turn
 * claims, mocks and post-call analysis; the analytics rollups' triggers take it out of the figures.
 * An active session is a 409: its workflow still runs and would record more. Then the workflow's
 * history (which holds the turns' words) is deleted from Temporal; a deletion Temporal cannot take
 * now is only logged, and the history goes at the namespace's retention.
 */
export async function deleteSession(ctx: AppContext, em: EntityManager, owner: Owner, id: string) {
  const { rows } = await em
    .getConnection()
    .getKnex()
    .raw<{ rows: { id: string }[] }>(
      `delete from sessions where id = ? and account_id = ? and environment = ? and status = 'ended' returning id`,
      [id, owner.accountId, owner.environment],
    );
  if (rows.length === 0) {
    await findSession(em, owner, id); // another account's, or none: 404
    throw conflict(`Session ${id} is active; end it (POST /sessions/${id}/end) before deleting it`);
  }
  forgetActiveSession(id);
  await deleteWorkflowHistory(ctx, id);
  return { deleted: true as const, id };
}

async function deleteWorkflowHistory(ctx: AppContext, sessionId: string): Promise<void> {
  try {
    await ctx.temporal.withAbortSignal(AbortSignal.timeout(HISTORY_DELETE_WAIT_MS), () =>
      ctx.temporal.workflowService.deleteWorkflowExecution({
        namespace: ctx.temporal.options.namespace,
        workflowExecution: { workflowId: sessionId },
      }),
    );
  } catch (error) {
    if (isGrpcServiceError(error) && error.code === GRPC_NOT_FOUND) return;
    ctx.logger.warn(
      { err: error, sessionId },
      'session deleted; its workflow history could not be deleted now and goes at the namespace retention',
    );
  }
}

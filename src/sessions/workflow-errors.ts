import { ServiceError, WorkflowNotFoundError, WorkflowUpdateFailedError } from '@temporalio/client';
import type { Response } from 'express';
import { ApiError, conflict } from '../http/errors';
import { knownRefusal } from '../temporal/update-refusal';
import type { Session } from './session.entity';

/** What the session's workflow itself refuses an update for (workflows/voice-session.ts). */
const SESSION_REFUSALS = [/^text is required$/];

const RETRY_AFTER_SECONDS = 2;

export function unavailable(res: Response | undefined, message: string): ApiError {
  res?.setHeader('Retry-After', String(RETRY_AFTER_SECONDS));
  return new ApiError(503, 'SERVICE_UNAVAILABLE', message);
}

/** Maps what can go wrong talking to the session's workflow onto the API's errors. */
export function workflowError(
  error: unknown,
  session: Pick<Session, 'id' | 'workflowStartedAt'>,
  res?: Response,
): never {
  if (error instanceof ApiError) throw error;
  if (error instanceof WorkflowUpdateFailedError) {
    const reason = error.cause?.message ?? '';
    if (/session has ended/i.test(reason)) throw conflict(`Session ${session.id} has ended`);
    const refusal = knownRefusal(error, SESSION_REFUSALS);
    // another refusal (the workflow closing under the update, say) is Temporal's to log, not the client's
    throw conflict(
      refusal
        ? `The session refused the turn: ${refusal}`
        : `Session ${session.id} could not take the turn now (it may be ending); retry shortly`,
    );
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

import { ServiceError, WorkflowNotFoundError, WorkflowUpdateFailedError } from '@temporalio/client';
import type { Response } from 'express';
import { ApiError, conflict } from '../http/errors';
import type { Session } from './session.entity';

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

import { ApplicationFailure, WorkflowUpdateFailedError } from '@temporalio/client';
import type { ApiError } from '../../src/http/errors';
import { workflowError } from '../../src/sessions/workflow-errors';

const INTERNAL =
  "Workflow Update is rejected because it wasn't processed by worker. Probably, Workflow Update is not supported by the worker.";
const failed = (message: string) =>
  new WorkflowUpdateFailedError('Workflow Update failed', ApplicationFailure.create({ message }));

function answer(error: unknown): ApiError {
  try {
    workflowError(error, { id: 'sess_x', workflowStartedAt: new Date() });
  } catch (e) {
    return e as ApiError;
  }
  throw new Error('workflowError did not throw');
}

/**
 * P16: a turn's 409 carried Temporal's internal message ("Workflow Update is rejected because it
 * wasn't processed by worker…"). A client now hears only the workflow's own refusals.
 */
describe("P16: errors never carry a dependency's internal message", () => {
  it('an update refused by Temporal itself is a 409 in our words', () => {
    const error = answer(failed(INTERNAL));
    expect([error.status, error.code]).toEqual([409, 'CONFLICT']);
    expect(error.message).toBe(
      'Session sess_x could not take the turn now (it may be ending); retry shortly',
    );
    expect(error.message).not.toMatch(/Workflow Update|worker/);
  });

  it("the session workflow's own refusals are passed on", () => {
    expect(answer(failed('The session has ended')).message).toBe('Session sess_x has ended');
    expect(answer(failed('text is required')).message).toBe('The session refused the turn: text is required');
  });
});

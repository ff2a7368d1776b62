import type { TurnRecord } from './turn-types';

/**
 * Turns answered in this process as soon as they are recorded (docs/sessions.md "In Temporal").
 *
 * A turn is a Workflow Update, and its step (`answerTurn`, a local activity) commits the turn's record
 * in PostgreSQL before it returns. From there, Temporal still has to finish the update: the step's
 * result goes back to the workflow, the workflow task completes, the server persists the history and
 * answers the client. That is about half of the update's round trip (bench:sessions). When the API
 * that sent the update and the worker that runs the step share a process (`npm start`), the API
 * answers the caller with the committed record at once, and the update finishes behind it with the
 * same record as its result.
 *
 * Nothing answered can be lost: the record is committed before it is delivered, and a step retried
 * after a crash answers from the record (the same turn). A turn answered anywhere else (on another
 * worker process, as after a crash; a voice command with side effects, which runs step by step in
 * the workflow; the turn after which the run continues as new, workflows/voice-session.ts) is
 * delivered by the update as before. The registry holds only the turns this process is waiting for.
 */
export class TurnAnswers {
  private readonly waiting = new Map<string, (turn: TurnRecord) => void>();
  /** Turns delivered early since the process started (tests and diagnostics). */
  delivered = 0;

  /** Waits for the turn of update `updateId`; `done()` stops waiting (always call it). */
  expect(updateId: string): { answered: Promise<TurnRecord>; done(): void } {
    const answered = new Promise<TurnRecord>((resolve) => this.waiting.set(updateId, resolve));
    return { answered, done: () => this.waiting.delete(updateId) };
  }

  /** Hands a committed turn to the request waiting for it in this process, if there is one. */
  deliver(updateId: string, turn: TurnRecord): boolean {
    const resolve = this.waiting.get(updateId);
    if (!resolve) return false;
    this.waiting.delete(updateId);
    this.delivered++;
    resolve(turn);
    return true;
  }
}

/** This process's registry: the API's turn route waits in it, the session activities deliver to it. */
export const turnAnswers = new TurnAnswers();

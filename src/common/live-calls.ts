/** How long a shutdown waits for the live calls to end (the process itself leaves within 10 s). */
export const SHUTDOWN_WAIT_MS = 5_000;

/** A call on one of the API's WebSockets, as a shutdown sees it. */
export interface LiveCall {
  /** Closes the socket (1001, going away) and ends the call; resolves once it has ended. */
  shutdown(): Promise<void>;
  /** Resolves once the call has ended, whichever way it ended. */
  readonly ended: Promise<void>;
}

/**
 * The calls a WebSocket server of this process is carrying, so that a shutdown waits for each to end
 * (its turn under way recorded, its session let go) before the process closes its Temporal and
 * database connections under them.
 */
export class LiveCalls {
  private readonly calls = new Set<LiveCall>();

  add(call: LiveCall): void {
    this.calls.add(call);
    void call.ended.finally(() => this.calls.delete(call));
  }

  /**
   * Ends every call, and resolves once all have ended, or after `waitMs` at the most (a call whose
   * ending waits on something that no longer answers, a worker gone first, must not hold the
   * process): true when all ended in time.
   */
  async shutdown(waitMs = SHUTDOWN_WAIT_MS): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const ended = Promise.allSettled([...this.calls].map((call) => call.shutdown())).then(() => true);
    const late = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), waitMs);
    });
    try {
      return await Promise.race([ended, late]);
    } finally {
      clearTimeout(timer);
    }
  }
}

/** How a call ends: once, whoever asks first (the caller, the line, a shutdown), and all may wait for it. */
export class CallEnding {
  private run?: Promise<void>;
  private resolve!: () => void;
  /** Resolves once the call's ending has run to its end. */
  readonly done = new Promise<void>((resolve) => {
    this.resolve = resolve;
  });

  /** The ending has begun (true from the first ask on, before `finish` has run a line). */
  get started(): boolean {
    return this.run !== undefined;
  }

  /**
   * Runs `finish` the first time it is asked; every caller gets the same run. `finish` starts on the
   * next microtask, once the run is recorded: an ask from inside it (a callback it sets off) gets
   * the same run instead of starting a second one.
   */
  once(finish: () => Promise<void>): Promise<void> {
    this.run ??= Promise.resolve()
      .then(finish)
      .finally(() => this.resolve());
    return this.run;
  }
}

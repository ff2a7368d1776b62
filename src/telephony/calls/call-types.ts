import type { Environment } from '../../common/owner';

/**
 * A call's session steps, bound to the process's context (call-sessions.ts): the worker's
 * activities are given them by the composition root, as agent tests' session driver is. Types only,
 * so activities/deps.ts can name it without reaching the sessions area's workflows.
 */
export interface CallSessionDriver {
  /** Starts a session as POST /sessions does; answers its id. */
  start(input: {
    accountId: string;
    environment: Environment;
    personaId: string;
    userId: string;
    metadata: Record<string, unknown>;
  }): Promise<string>;
  /** Ends a session (idempotent: an ended session stays ended). */
  end(input: { accountId: string; environment: Environment; sessionId: string }): Promise<void>;
}

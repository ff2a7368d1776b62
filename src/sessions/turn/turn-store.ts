import {
  type CommandInput,
  type CommandRun,
  commandUpdate,
  type ToolRoundInput,
  type TurnInput,
  toolsUpdate,
  turnUpdate,
} from '../../../workflows/messages';
import type { AppContext } from '../../common/context';
import type { AgentToolOutcome } from '../agent-tools';
import type { TurnRecord } from '../turn-types';

/**
 * The durable half of a turn: what goes through the session's workflow (docs/sessions.md "Where each
 * part runs"). Each is a Workflow Update with an id derived from the turn's, so sending one again
 * (a retry after a lost answer) reaches the same update and its one result.
 */

/** How long an update is awaited before the turn fails with 503 (the claim outlives it). */
export const UPDATE_WAIT_MS = 60_000;

/** The Temporal client that sends updates: the API's own connection, which honours abort signals. */
function sendUpdate<T>(ctx: AppContext, send: () => Promise<T>): Promise<T> {
  // the client's connection, not a worker's native one: that one ignores abort signals and retries
  // while Temporal is down, where a turn must fail at once
  return ctx.temporal.withAbortSignal(AbortSignal.timeout(UPDATE_WAIT_MS), send);
}

const handleOf = (ctx: AppContext, sessionId: string) => ctx.temporal.workflow.getHandle(sessionId);

/** Records the ended turn (update id = the turn's id); answers it as recorded, with its index. */
export function recordTurnInWorkflow(
  ctx: AppContext,
  turn: { sessionId: string; turnId: string } & TurnInput,
): Promise<TurnRecord> {
  const { sessionId, turnId, ...entry } = turn;
  return sendUpdate(ctx, () =>
    handleOf(ctx, sessionId).executeUpdate(turnUpdate, { args: [entry], updateId: turnId }),
  );
}

/** Runs one model round's tool calls in the workflow, each at most once. */
export function runToolsInWorkflow(
  ctx: AppContext,
  sessionId: string,
  round: ToolRoundInput & { round: number },
): Promise<AgentToolOutcome[]> {
  const { round: n, ...input } = round;
  return sendUpdate(ctx, () =>
    handleOf(ctx, sessionId).executeUpdate(toolsUpdate, {
      args: [input],
      updateId: `${round.turnId}:tools:${n}`,
    }),
  );
}

/** Runs a voice command with side effects in the workflow, step by step. */
export function runCommandInWorkflow(
  ctx: AppContext,
  sessionId: string,
  command: CommandInput,
): Promise<CommandRun> {
  return sendUpdate(ctx, () =>
    handleOf(ctx, sessionId).executeUpdate(commandUpdate, {
      args: [command],
      updateId: `${command.turnId}:command`,
    }),
  );
}

/**
 * The steps of one scenario's child workflow (workflows/test-run.ts), each idempotent: a real
 * session in the `test` environment, started, spoken to and ended through the session engine that
 * POST /sessions and POST /sessions/:id/turns use, with the scenario's mocks kept for its tool
 * rounds (src/sessions/tool-mocks.ts).
 */
import type { PlatformAuth } from '../auth/platform-auth';
import type { AppContext } from '../common/context';
import { endSession, Session, startSession, takeTurnOnce } from '../sessions';
import type { TestSessionDriver, TestSessionStart, TranscriptTurn } from './agent-test-types';

/** The caller id of a scenario's session: one per run and scenario, so a repeated start finds it. */
export const testCallerId = (runId: string, scenarioId: string) => `${runId}/${scenarioId}`;

/** The session engine's view of the account in the test environment (an agent test holds no key). */
const testOwner = (accountId: string) =>
  ({ accountId, environment: 'test', keyId: 'agent-test', scopes: [], plan: 'free' }) as PlatformAuth;

/**
 * Starts the scenario's session (or finds the one a previous attempt started) and keeps its mocks
 * before the first turn can call a tool.
 */
export async function startTestSession(
  ctx: AppContext,
  input: TestSessionStart,
): Promise<{ sessionId: string; greeting: string }> {
  const em = ctx.orm.em.fork();
  const userId = testCallerId(input.runId, input.scenarioId);
  let session: { id: string; greeting: string } | null = await em.findOne(Session, {
    account: input.accountId,
    environment: 'test',
    userId,
  });
  session ??= await startSession(
    ctx,
    em,
    testOwner(input.accountId),
    {
      personaId: input.personaId,
      ...(input.personaVersion === null ? {} : { personaVersion: input.personaVersion }),
      userId,
      metadata: { testRunId: input.runId, scenarioId: input.scenarioId },
      recording: false,
    },
    { testRunId: input.runId },
  );
  // no mocks, no row: a session without one has nothing mocked
  if (input.mocks && Object.keys(input.mocks).length > 0) {
    await em
      .getConnection()
      .getKnex()
      .raw(
        'insert into session_tool_mocks (session_id, mocks) values (?, ?::jsonb) on conflict (session_id) do nothing',
        [session.id, JSON.stringify(input.mocks)],
      );
  }
  return { sessionId: session.id, greeting: session.greeting };
}

interface RecordedTurn {
  index: number;
  text: string;
  reply: { text: string } | string;
  route: TranscriptTurn['route'];
  actions: {
    type: string;
    tool?: string;
    toolId?: string;
    arguments?: Record<string, unknown>;
    success?: boolean;
  }[];
  latencyMs: number;
  error: string | null;
}

function transcriptTurn(turn: RecordedTurn): TranscriptTurn {
  return {
    index: turn.index,
    text: turn.text,
    reply: typeof turn.reply === 'string' ? turn.reply : turn.reply.text,
    route: turn.route,
    toolCalls: turn.actions
      .filter((a) => a.type === 'tool')
      .map((a) => ({
        name: a.tool ?? '',
        arguments: a.arguments ?? {},
        success: a.success === true,
        mocked: a.toolId === 'mock',
      })),
    latencyMs: turn.latencyMs,
    error: turn.error ?? null,
  };
}

/**
 * The id of a scenario's turn: its session and its index, both fixed by the scenario's workflow
 * before the step runs, so the step run again (its worker died) takes the same turn, not a new one.
 */
export const testTurnId = (sessionId: string, index: number) => `${sessionId}:turn:${index}`;

/**
 * Takes turn `index` of the session through the REST turn engine, as the turn `testTurnId` names
 * (src/sessions/turn-once.ts): the step run again after its worker died takes over its claim at
 * once and is the same turn, so a tool call in flight is not run twice. A turn recorded already is
 * answered from its record, not taken twice.
 */
export async function takeTestTurn(
  ctx: AppContext,
  input: { accountId: string; sessionId: string; index: number; text: string },
): Promise<TranscriptTurn> {
  const em = ctx.orm.em.fork();
  const knex = em.getConnection().getKnex();
  const { rows } = await knex.raw<{ rows: (RecordedTurn & { latency_ms: number })[] }>(
    'select index, text, reply, route, actions, error, latency_ms from session_turns where session_id = ? and index = ?',
    [input.sessionId, input.index],
  );
  if (rows[0]) return transcriptTurn({ ...rows[0], latencyMs: rows[0].latency_ms });
  const owner = { accountId: input.accountId, environment: 'test' as const };
  const turnId = testTurnId(input.sessionId, input.index);
  const turn = await takeTurnOnce(ctx, owner, { sessionId: input.sessionId, turnId, text: input.text });
  return transcriptTurn(turn as RecordedTurn);
}

/** Ends the session (idempotent: an ended session stays ended). */
export async function endTestSession(ctx: AppContext, input: { accountId: string; sessionId: string }) {
  await endSession(
    ctx,
    ctx.orm.em.fork(),
    { accountId: input.accountId, environment: 'test' },
    input.sessionId,
  );
}

/** The session steps bound to the process's context: what the worker's activities are given. */
export function testSessionDriver(ctx: AppContext): TestSessionDriver {
  return {
    start: (input) => startTestSession(ctx, input),
    takeTurn: (input) => takeTestTurn(ctx, input),
    end: (input) => endTestSession(ctx, input),
  };
}

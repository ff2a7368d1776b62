import os from 'node:os';
import { createLogger } from '../src/logging/logger';
import { ONE_TOOL_QUESTION, restTurns, sequential, startBenchPlatform } from './platform';
import { latencyStats, runBench } from './support';

/**
 * bench:evals — an agent test run through the platform API as a CI job starts it
 * (`POST /api/v2/developers/personas/:id/test-runs?wait=true`, a key with tests:run), against the
 * platform of bench:sessions (API and worker in one child process, Temporal dev server, PostgreSQL,
 * a real MCP server, an LLM double answering at once):
 * - EVALS_SCENARIOS (50) scripted scenarios of 3 caller turns, each turn bench:sessions' one-tool
 *   LLM turn (model → MCP tool, not mocked → model) with a replyContains expectation (and a
 *   toolCalled on the first), run EVALS_CONCURRENCY (8) at a time (TEST_RUN_CONCURRENCY of the
 *   platform): wall time, scenarios/s (target ≥ 10), turns, and the run's time per turn;
 * - the baseline, same run: bench:sessions' REST turn (the one-tool LLM turn through
 *   POST /sessions/:id/turns, BENCH_TURNS (150) one after another after 20 unmeasured), and the
 *   ratio of the run's time per turn to it (target ≤ 1.2×);
 * - for context, the same scenarios driven over REST by as many concurrent callers (start, 3 turns,
 *   end), with no workflow around them: the orchestration's own cost at equal concurrency.
 * The run's time per turn is its wall time ÷ its turns (docs/performance.md "bench:evals").
 */

const SCENARIOS = Number(process.env.EVALS_SCENARIOS ?? 50);
const CONCURRENCY = Number(process.env.EVALS_CONCURRENCY ?? 8);
const TURNS = Number(process.env.BENCH_TURNS ?? 150);
/** Each a one-tool turn: the double calls the order tool whenever the caller mentions an order. */
const CALLER_TURNS = [ONE_TOOL_QUESTION, 'Is order A-1 on its way?', 'When will order A-1 arrive?'];

const ms = (n: number) => `${n.toFixed(1)} ms`;

const scenarioOf = (i: number) => ({
  name: `order status ${i + 1}`,
  turns: CALLER_TURNS.map((text, t) => ({
    text,
    expect: [
      { type: 'replyContains', text: 'shipped' },
      ...(t === 0 ? [{ type: 'toolCalled', name: 'orders__lookup_order' }] : []),
    ],
  })),
});

/** The scenarios' turns driven over REST by `lanes` callers at once, each scenario a session of its own. */
async function restScenarios(turnsOver: ReturnType<typeof restTurns>, lanes: number, scenarios: number) {
  const { startSession, turn, endSession } = turnsOver;
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: lanes }, async () => {
      while (next < scenarios) {
        const id = await startSession(`rest-caller-${next++}`);
        for (const text of CALLER_TURNS) await turn(id, text, 'llm');
        await endSession(id);
      }
    }),
  );
  return performance.now() - started;
}

async function main(): Promise<void> {
  const logger = createLogger('warn', 'bench');
  const platform = await startBenchPlatform('evals', logger, { TEST_RUN_CONCURRENCY: String(CONCURRENCY) });
  const { request, token, key, persona } = platform;
  try {
    for (let i = 0; i < SCENARIOS; i++)
      await request('POST', `/api/v1/developers/personas/${persona.id}/tests`, token, scenarioOf(i));
    const rest = restTurns(platform);

    // the baseline, as bench:sessions measures its one-tool LLM turn
    const toolSession = await rest.startSession('bench-tool');
    const restTurn = await sequential(() => rest.turn(toolSession, ONE_TOOL_QUESTION, 'llm'), TURNS);
    const restWall = await restScenarios(rest, CONCURRENCY, SCENARIOS);

    const asked = performance.now();
    const run = (
      await request('POST', `/api/v2/developers/personas/${persona.id}/test-runs?wait=true`, key, {})
    ).data;
    const clientWall = performance.now() - asked;
    if (run.status === 'running') throw new Error(`the run did not end: ${JSON.stringify(run)}`);
    const wall = new Date(run.completedAt).getTime() - new Date(run.createdAt).getTime();
    const recorded = (run.scenarios as { latencies: { turnsMs: number[] } }[]).flatMap(
      (s) => s.latencies.turnsMs,
    );
    const turns = SCENARIOS * CALLER_TURNS.length;
    const perTurn = wall / turns;
    const inRun = latencyStats(recorded);
    const problems = (run.scenarios as { status: string; error: string | null }[])
      .filter((s) => s.status !== 'passed')
      .map((s) => `${s.status}${s.error ? `: ${s.error}` : ''}`);

    console.log(
      `\nbench:evals — ${os.availableParallelism()} cores; API and worker in one process (npm start) beside this one; LLM double answering at once; real MCP server; TEST_RUN_CONCURRENCY=${CONCURRENCY}\n`,
    );
    console.log(
      `REST turn (bench:sessions' one-tool LLM turn, ${TURNS}× one after another): p50 ${ms(restTurn.p50)}, p95 ${ms(restTurn.p95)}, mean ${ms(restTurn.mean)}`,
    );
    console.log(
      `test run: ${SCENARIOS} scenarios × ${CALLER_TURNS.length} one-tool turns, ${CONCURRENCY} at a time: ${run.passed} passed, ${run.failed} failed${problems.length ? ` (${[...new Set(problems)].join('; ')})` : ''}`,
    );
    console.log(
      `  wall time (run created → completed, as recorded): ${(wall / 1000).toFixed(2)} s (the ?wait=true answer came after ${(clientWall / 1000).toFixed(2)} s)`,
    );
    console.log(`  scenarios/s: ${(SCENARIOS / (wall / 1000)).toFixed(2)} (target ≥ 10)`);
    console.log(`  turns: ${turns} (${recorded.length} recorded)`);
    console.log(
      `  the run's time per turn = wall time ÷ turns (sessions started and ended, turns, results and workflows included): ${ms(perTurn)}`,
    );
    console.log(
      `  → ${(perTurn / restTurn.mean).toFixed(2)}× the REST turn's mean (target ≤ 1.2×), ${(perTurn / restTurn.p50).toFixed(2)}× its p50`,
    );
    console.log(
      `  for context: a lane's time per turn (wall × ${CONCURRENCY} ÷ turns) ${ms((wall * CONCURRENCY) / turns)}; the turns' latency as the run recorded it: p50 ${ms(inRun.p50)}, p95 ${ms(inRun.p95)}`,
    );
    console.log(
      `the same scenarios over REST, ${CONCURRENCY} callers at once (start, ${CALLER_TURNS.length} turns, end; no workflow): ${(restWall / 1000).toFixed(2)} s, ${ms(restWall / turns)} per turn → the run takes ${(wall / restWall).toFixed(2)}× as long`,
    );
  } finally {
    await platform.stop();
  }
}

runBench(main);

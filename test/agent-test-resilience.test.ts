import type { ChildProcess } from 'node:child_process';
import { TOOL_OUTCOME_UNKNOWN } from '../src/sessions/agent-tools';
import { STEP_TURN_CLAIM_MS } from '../src/sessions/turn-once';
import { TEST_ENV } from './support/env';
import { createIsolatedDatabase } from './support/isolated-db';
import { startLlmDouble } from './support/llm-double';
import { completeManifest } from './support/personas';
import { eventually, startReceiver } from './support/receiver';
import { spawnWorker, stopProcess, workerProcessEnv } from './support/resilience';
import { call, newDeveloper, startTestApp } from './support/test-app';

type Api = (method: string, path: string, body?: unknown) => ReturnType<typeof call<any>>;

/**
 * An app on its own database and task queue, with the LLM double, a developer and a persona; the
 * run's steps run on a worker process that `killWorker` SIGKILLs (and starts the next one).
 */
async function withKillableWorker(
  label: string,
  scenario: (s: {
    llm: Awaited<ReturnType<typeof startLlmDouble>>;
    app: Awaited<ReturnType<typeof startTestApp>>;
    /** The console API (v1), as the developer. */
    api: Api;
    /** The platform API (v2) with the developer's `test` key. */
    testApi: Api;
    personaId: string;
    killWorker: () => Promise<void>;
  }) => Promise<void>,
): Promise<void> {
  const db = await createIsolatedDatabase(label);
  const llm = await startLlmDouble();
  const env = {
    NODE_ENV: 'test',
    DATABASE_URL: db.url,
    TEMPORAL_ADDRESS: TEST_ENV.temporalAddress(),
    TEMPORAL_TASK_QUEUE: `vp-${label}-${process.pid}`,
    LLM_BASE_URL: llm.baseUrl,
  };
  const app = await startTestApp({ ...env, RATE_LIMITS: 'off' });
  const workerEnv = workerProcessEnv(env, label);
  let first: ChildProcess | undefined = spawnWorker(workerEnv);
  let second: ChildProcess | undefined;
  try {
    const dev = await newDeveloper(app);
    const api: Api = (method, path, body) =>
      call(app.baseUrl, method, `/api/v1/developers${path}`, { token: dev.token, body });
    const testApi: Api = (method, path, body) =>
      call(app.baseUrl, method, `/api/v2/developers${path}`, { token: dev.testKey, body });
    const personaId = (await api('POST', '/personas', { manifest: completeManifest(`${label}-ava`) })).body
      .persona.id as string;
    const killWorker = async () => {
      await stopProcess(first, 'SIGKILL');
      first = undefined;
      second = spawnWorker(workerEnv);
    };
    await scenario({ llm, app, api, testApi, personaId, killWorker });
  } finally {
    await stopProcess(first, 'SIGKILL');
    await stopProcess(second, 'SIGTERM');
    await app.close();
    await llm.close();
    await db.drop();
  }
}

/**
 * A test run whose worker process is SIGKILLed while the run waits for its judge: the run's and the
 * scenario's workflows go on on the next worker, the judge is asked again, turns already taken are
 * not taken again, and the run ends passed with one test_run.completed.
 */
describe('a test run survives a worker SIGKILL', () => {
  it('finishes on the next worker with every turn taken once', async () => {
    await withKillableWorker('testrunkill', async ({ llm, app, api, personaId, killWorker }) => {
      let judgeAsked = 0;
      llm.script((req) => {
        if (!(req.messages[0]?.content ?? '').startsWith("You grade a voice agent's conversation"))
          return { content: `You said: ${req.messages.at(-1)?.content}` };
        judgeAsked++;
        // the first judge call outlives its worker; the retry answers at once
        return {
          content: JSON.stringify({ passed: true, reason: 'It echoed.' }),
          delayMs: judgeAsked === 1 ? 5_000 : 0,
        };
      });
      const scenario = await api('POST', `/personas/${personaId}/tests`, {
        name: 'echo',
        turns: [{ text: 'one' }, { text: 'two' }],
        expectations: [
          { type: 'judge', rubric: 'The agent repeats the caller' },
          { type: 'replyContains', text: 'two' },
        ],
      });
      const started = await api('POST', `/personas/${personaId}/test-runs`, {});
      expect(started.status).toBe(202);
      const runId = started.body.run.id as string;

      await eventually(async () => judgeAsked === 1, 90_000);
      await killWorker();

      let run: any;
      await eventually(async () => {
        run = (await api('GET', `/test-runs/${runId}`)).body.run;
        return run.status !== 'running';
      }, 120_000);
      expect(run).toMatchObject({ status: 'passed', passed: 1, failed: 0 });
      const [result] = run.scenarios;
      expect(result.scenarioId).toBe(scenario.body.scenario.id);
      expect(result.transcript.map((t: { text: string }) => t.text)).toEqual(['one', 'two']);
      expect(result.verdicts[0]).toMatchObject({ passed: true, reason: 'It echoed.' });
      expect(judgeAsked).toBe(2);
      const knex = app.ctx.orm.em.getConnection().getKnex();
      const { rows: turns } = await knex.raw(
        'select count(*)::int as n from session_turns where session_id = ?',
        [result.sessionId],
      );
      expect(turns[0].n).toBe(2);
      const { rows: events } = await knex.raw(
        `select count(*)::int as n from events where type = 'test_run.completed' and payload like ?`,
        [`%${runId}%`],
      );
      expect(events[0].n).toBe(1);
    });
  }, 240_000);
});

/**
 * Two scenarios of two turns, each turn calling a webhook tool that answers in 4 s (a local
 * receiver), the worker SIGKILLed while tool calls are in flight. The step that takes a turn runs
 * again on the next worker as the same turn (its id is the session's and the turn's index): the
 * tool round in flight is the same Workflow Update, so the tool is called once per turn; and the
 * turn's claim on its session is the same one, short and renewed while the turn runs, so the retry
 * is not shut out for minutes by the dead worker's claim.
 */
describe('a test run whose worker is SIGKILLed during a tool call', () => {
  it('calls the tool once per turn and finishes on the next worker without waiting out a claim', async () => {
    const receiver = await startReceiver({ delayMs: 4_000 });
    try {
      await withKillableWorker('testruntool', async ({ llm, app, api, testApi, personaId, killWorker }) => {
        const tool = await testApi('POST', '/tools', {
          name: 'slow_lookup',
          type: 'webhook',
          config: { url: receiver.url, method: 'POST' },
        });
        expect(tool.status).toBe(201);
        // the agent is offered the tool (docs/personas.md "Tools")
        const named = await api('PUT', `/personas/${personaId}`, {
          manifest: {
            ...completeManifest('testruntool-ava'),
            tools: [{ type: 'tool', id: tool.body.data.id }],
          },
        });
        expect(named.status).toBe(200);
        // each model round: a new call id (as a hosted model gives), so a tool round asked of the
        // model again would be a new call; after the tool answered, a reply
        llm.script((req, i) =>
          req.messages.at(-1)?.role === 'tool'
            ? { content: 'Looked it up.' }
            : { tool_calls: [{ id: `call_${i}`, name: 'slow_lookup', arguments: {} }] },
        );
        for (const name of ['first', 'second']) {
          const made = await api('POST', `/personas/${personaId}/tests`, {
            name,
            turns: [{ text: 'Where is my order?' }, { text: 'And the other one?' }],
            expectations: [{ type: 'toolCalled', name: 'slow_lookup' }],
          });
          expect(made.status).toBe(201);
        }
        const started = await api('POST', `/personas/${personaId}/test-runs`, {});
        expect(started.status).toBe(202);
        const runId = started.body.run.id as string;
        const knex = app.ctx.orm.em.getConnection().getKnex();
        // how far ahead any turn's claim on a session reaches, as sampled while the run goes on
        let longestClaimS = 0;
        const sampleClaims = async () => {
          const { rows } = await knex.raw(
            'select coalesce(max(extract(epoch from expires_at - now())), 0)::float as s from session_turn_claims',
          );
          longestClaimS = Math.max(longestClaimS, rows[0].s);
        };

        await eventually(async () => {
          await sampleClaims();
          return receiver.requests.length >= 2;
        }, 180_000);
        await killWorker();

        let run: any;
        await eventually(async () => {
          await sampleClaims();
          run = (await api('GET', `/test-runs/${runId}`)).body.run;
          return run.status !== 'running';
        }, 150_000);
        // one call per turn: 2 scenarios × 2 turns (the calls in flight at the kill were not run again)
        expect(receiver.requests).toHaveLength(4);
        expect(run).toMatchObject({ total: 2 });
        for (const result of run.scenarios) {
          expect(result.status).not.toBe('error');
          expect(result.transcript).toHaveLength(2);
          for (const turn of result.transcript) expect(turn.toolCalls).toHaveLength(1);
          const { rows } = await knex.raw(
            'select count(*)::int as n from session_turns where session_id = ?',
            [result.sessionId],
          );
          expect(rows[0].n).toBe(2);
        }
        // a call was in flight at the kill: its outcome is unknown, and it was not run again
        const { rows: unknown } = await knex.raw(
          `select count(*)::int as n from session_tool_calls where outcome->'action'->>'error' = ?`,
          [TOOL_OUTCOME_UNKNOWN],
        );
        expect(unknown[0].n).toBeGreaterThanOrEqual(1);
        // a claim taken by a worker's step is short and renewed: a dead worker's lapses in seconds
        expect(longestClaimS).toBeLessThanOrEqual(STEP_TURN_CLAIM_MS / 1000 + 1);
      });
    } finally {
      await receiver.close();
    }
  }, 420_000);
});

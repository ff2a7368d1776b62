import type { ChildProcess } from 'node:child_process';
import { TEST_ENV } from './support/env';
import { createIsolatedDatabase } from './support/isolated-db';
import { startLlmDouble } from './support/llm-double';
import { completeManifest } from './support/personas';
import { eventually } from './support/receiver';
import { spawnWorker, stopProcess, workerProcessEnv } from './support/resilience';
import { call, newDeveloper, startTestApp } from './support/test-app';

/**
 * A test run whose worker process is SIGKILLed while the run waits for its judge: the run's and the
 * scenario's workflows go on on the next worker, the judge is asked again, turns already taken are
 * not taken again, and the run ends passed with one test_run.completed.
 */
describe('a test run survives a worker SIGKILL', () => {
  it('finishes on the next worker with every turn taken once', async () => {
    const label = 'testrunkill';
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
      const dev = await newDeveloper(app);
      const api = (method: string, path: string, body?: unknown) =>
        call(app.baseUrl, method, `/api/v1/developers${path}`, { token: dev.token, body });
      const personaId = (await api('POST', '/personas', { manifest: completeManifest(`${label}-ava`) })).body
        .persona.id;
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
      await stopProcess(first, 'SIGKILL');
      first = undefined;
      second = spawnWorker(workerEnv);

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
    } finally {
      await stopProcess(first, 'SIGKILL');
      await stopProcess(second, 'SIGTERM');
      await app.close();
      await llm.close();
      await db.drop();
    }
  }, 240_000);
});

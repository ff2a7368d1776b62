import type { MutationTable, PreparedMutation } from '../concurrent-mutations';
import { successes } from '../concurrent-mutations';
import { eventually } from '../receiver';
import { type BaseEnv, count, draftPersona, ok, v1 } from './fixtures';

const SCENARIO = { name: 'race', turns: [{ text: 'hello', expect: [{ type: 'route', route: 'llm' }] }] };

async function personaWithScenario(env: BaseEnv): Promise<{ personaId: string; scenarioId: string }> {
  const personaId = await draftPersona(env);
  const created = await ok(v1(env, 'POST', `/personas/${personaId}/tests`, SCENARIO), 'create scenario');
  return { personaId, scenarioId: created.body.scenario.id as string };
}

const runsOf = (env: BaseEnv, personaId: string) =>
  count(env.app, 'select count(*) from test_runs where persona_id = ?', [personaId]);
const completions = (env: BaseEnv, runId: string) =>
  count(env.app, `select count(*) from events where type = 'test_run.completed' and payload like ?`, [
    `%${runId}%`,
  ]);

/** Concurrent starts: each answer is a run of its own, and each run ends once (one event each). */
function startRuns(root: 'v1' | 'v2') {
  return async (env: BaseEnv): Promise<PreparedMutation> => {
    const { personaId } = await personaWithScenario(env);
    return {
      request: {
        method: 'POST',
        path: `/api/${root}/developers/personas/${personaId}/test-runs`,
        token: root === 'v1' ? env.dev.token : env.dev.testKey,
        body: {},
      },
      check: async (answers) => {
        const ids = successes(answers).map((a) => (root === 'v1' ? a.body.run.id : a.body.data.id));
        expect(new Set(ids).size).toBe(answers.length);
        expect(await runsOf(env, personaId)).toBe(answers.length);
        for (const id of ids) await eventually(async () => (await completions(env, id)) === 1, 60_000);
      },
    };
  };
}

/** Concurrent cancels of one run: every answer is the run, which ends once. */
function cancelRun(root: 'v1' | 'v2') {
  return async (env: BaseEnv): Promise<PreparedMutation> => {
    const { personaId } = await personaWithScenario(env);
    const run = await ok(v1(env, 'POST', `/personas/${personaId}/test-runs`, {}), 'start run');
    const runId = run.body.run.id as string;
    return {
      request: {
        method: 'POST',
        path: `/api/${root}/developers/test-runs/${runId}/cancel`,
        token: root === 'v1' ? env.dev.token : env.dev.testKey,
      },
      check: async (answers) => {
        const statuses = successes(answers).map((a) =>
          root === 'v1' ? a.body.run.status : a.body.data.status,
        );
        expect(statuses.length).toBe(answers.length);
        // the run ended either by the cancel or, when it was quicker, on its own: one outcome for all
        expect(new Set(statuses).size).toBe(1);
        expect(statuses[0]).not.toBe('running');
        expect(await completions(env, runId)).toBe(1);
      },
    };
  };
}

/** Agent tests (issue 27, items 1 and 2): scenarios and runs, raced. Runs need the run's worker. */
export const agentTestCases: MutationTable<BaseEnv> = {
  'POST /api/v1/developers/personas/{id}/tests': {
    kind: 'create',
    prepare: async (env) => {
      const personaId = await draftPersona(env);
      return {
        request: {
          method: 'POST',
          path: `/api/v1/developers/personas/${personaId}/tests`,
          token: env.dev.token,
          body: SCENARIO,
        },
        check: async (answers) => {
          const ids = new Set(successes(answers).map((a) => a.body.scenario.id));
          expect(ids.size).toBe(answers.length);
          expect((await v1(env, 'GET', `/personas/${personaId}/tests`)).body.scenarios).toHaveLength(
            ids.size,
          );
        },
      };
    },
  },
  'PUT /api/v1/developers/personas/{id}/tests/{scenarioId}': {
    kind: 'replace',
    prepare: async (env) => {
      const { personaId, scenarioId } = await personaWithScenario(env);
      const path = `/personas/${personaId}/tests/${scenarioId}`;
      return {
        request: {
          method: 'PUT',
          path: `/api/v1/developers${path}`,
          token: env.dev.token,
          body: { ...SCENARIO, name: 'raced' },
        },
        check: async () => {
          expect((await v1(env, 'GET', path)).body.scenario.name).toBe('raced');
        },
      };
    },
  },
  'DELETE /api/v1/developers/personas/{id}/tests/{scenarioId}': {
    kind: 'delete',
    prepare: async (env) => {
      const { personaId, scenarioId } = await personaWithScenario(env);
      const path = `/personas/${personaId}/tests/${scenarioId}`;
      return {
        request: { method: 'DELETE', path: `/api/v1/developers${path}`, token: env.dev.token },
        check: async () => {
          expect((await v1(env, 'GET', path)).status).toBe(404);
        },
      };
    },
  },
  'POST /api/v1/developers/personas/{id}/test-runs': { kind: 'create', prepare: startRuns('v1') },
  'POST /api/v2/developers/personas/{id}/test-runs': { kind: 'create', prepare: startRuns('v2') },
  'POST /api/v1/developers/test-runs/{id}/cancel': { kind: 'action', prepare: cancelRun('v1') },
  'POST /api/v2/developers/test-runs/{id}/cancel': { kind: 'action', prepare: cancelRun('v2') },
};

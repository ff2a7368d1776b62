import type { MutationTable } from '../concurrent-mutations';
import { expectOneOf, successes } from '../concurrent-mutations';
import { eventually } from '../receiver';
import { agentTestCases } from './agent-tests';
import { type BaseEnv, count, draftPersona, ok, unique, v2 } from './fixtures';

const P = '/api/v2/developers';
const total = async (env: BaseEnv, path: string) =>
  (await v2(env, 'GET', path)).body.pagination.total as number;

const GRAPH = {
  nodes: [
    { id: 'start', type: 'start' },
    { id: 'say', type: 'speak', config: { text: 'Open from {{input.from}} to five.' } },
    { id: 'end', type: 'end' },
  ],
  edges: [
    { sourceId: 'start', targetId: 'say' },
    { sourceId: 'say', targetId: 'end' },
  ],
};
/** The one voice command of the developer's (so a trigger matches it and nothing else). */
const COMMAND = 'opening hours';

async function workflow(env: BaseEnv, trigger: unknown = { type: 'manual', config: {} }): Promise<string> {
  const res = await ok(
    v2(env, 'POST', '/workflows', { name: unique('wf'), trigger, ...GRAPH }),
    'create workflow',
  );
  return res.body.data.id as string;
}

const executionsOf = (env: BaseEnv, workflowId: string) =>
  count(env.app, 'select count(*) from workflow_executions where workflow_id = ?', [workflowId]);

/** A session of the developer's sandbox (test key, draft persona), its workflow running. */
async function session(env: BaseEnv): Promise<string> {
  const personaId = await draftPersona(env);
  const started = await ok(
    v2({ ...env, dev: { ...env.dev, liveKey: env.dev.testKey } }, 'POST', '/sessions', {
      personaId,
      userId: 'caller',
    }),
    'start session',
  );
  return started.body.data.id as string;
}

const sessionOf = async (env: BaseEnv, id: string) =>
  (await v2({ ...env, dev: { ...env.dev, liveKey: env.dev.testKey } }, 'GET', `/sessions/${id}`)).body.data;

/** Voice workflows and sessions on the platform API (their runs and turns go through the run's worker). */
export const platformRunCases: MutationTable<BaseEnv> = {
  ...agentTestCases,
  'POST /api/v2/developers/workflows': {
    kind: 'create',
    prepare: async (env) => {
      const before = await total(env, '/workflows');
      return {
        request: {
          method: 'POST',
          path: `${P}/workflows`,
          token: env.dev.liveKey,
          body: { name: 'race', trigger: { type: 'manual', config: {} }, ...GRAPH },
        },
        check: async (answers) =>
          expect((await total(env, '/workflows')) - before).toBe(successes(answers).length),
      };
    },
  },
  'PUT /api/v2/developers/workflows/{id}': {
    kind: 'replace',
    prepare: async (env) => {
      const id = await workflow(env);
      return {
        request: {
          method: 'PUT',
          path: `${P}/workflows/${id}`,
          token: env.dev.liveKey,
          body: { name: 'renamed' },
        },
        // two updates cannot save one version number: one is a 409 (docs/voice-workflows.md "Inspect")
        alsoAllowed: [409],
        check: async (answers) => {
          const current = (await v2(env, 'GET', `/workflows/${id}`)).body.data;
          const pick = (w: any) => ({ name: w.name, version: w.version });
          expectOneOf(pick(current), answers, pick);
          expect(current.version).toBe(1 + successes(answers).length);
          expect(await total(env, `/workflows/${id}/versions`)).toBe(current.version);
        },
      };
    },
  },
  'DELETE /api/v2/developers/workflows/{id}': {
    kind: 'delete',
    prepare: async (env) => {
      const id = await workflow(env);
      return {
        request: { method: 'DELETE', path: `${P}/workflows/${id}`, token: env.dev.liveKey },
        check: async () => expect((await v2(env, 'GET', `/workflows/${id}`)).status).toBe(404),
      };
    },
  },
  'POST /api/v2/developers/workflows/{id}/execute': {
    kind: 'action',
    prepare: async (env) => {
      const id = await workflow(env);
      return {
        request: {
          method: 'POST',
          path: `${P}/workflows/${id}/execute`,
          token: env.dev.liveKey,
          body: { input: { from: 9 } },
        },
        check: async (answers) => {
          // each run answered is one execution of its own, completed
          const runs = new Set(successes(answers).map((a) => a.body.data.id));
          expect(runs.size).toBe(successes(answers).length);
          expect(successes(answers).map((a) => a.body.data.status)).toEqual(
            Array(runs.size).fill('completed'),
          );
          expect(await executionsOf(env, id)).toBe(runs.size);
        },
      };
    },
  },
  'POST /api/v2/developers/workflows/trigger': {
    kind: 'action',
    prepare: async (env) => {
      const id = await workflow(env, { type: 'voice_command', config: { command: COMMAND } });
      return {
        request: {
          method: 'POST',
          path: `${P}/workflows/trigger`,
          token: env.dev.liveKey,
          body: { utterance: COMMAND },
        },
        check: async (answers) => {
          const runs = new Set(successes(answers).map((a) => a.body.data.id));
          expect(runs.size).toBe(successes(answers).length);
          expect(await executionsOf(env, id)).toBe(runs.size);
        },
      };
    },
  },
  'POST /api/v2/developers/workflows/{id}/test': {
    kind: 'action',
    prepare: async (env) => {
      const id = await workflow(env);
      return {
        request: {
          method: 'POST',
          path: `${P}/workflows/${id}/test`,
          token: env.dev.liveKey,
          body: { input: { from: 9 } },
        },
        check: async (answers) => {
          const outcomes = successes(answers).map((a) =>
            JSON.stringify([a.body.data.status, a.body.data.output]),
          );
          expect(new Set(outcomes).size).toBe(1);
          expect(await executionsOf(env, id)).toBe(0); // a dry run records nothing
        },
      };
    },
  },
  'POST /api/v2/developers/sessions': {
    kind: 'create',
    prepare: async (env) => {
      const personaId = await draftPersona(env);
      return {
        request: {
          method: 'POST',
          path: `${P}/sessions`,
          token: env.dev.testKey,
          body: { personaId, userId: 'race' },
        },
        check: async (answers) => {
          expect(
            await count(env.app, 'select count(*) from sessions where persona_id = ?', [personaId]),
          ).toBe(successes(answers).length);
          const started = await count(
            env.app,
            "select count(*) from events where type = 'session.started' and persona_id = ?",
            [personaId],
          );
          expect(started).toBe(successes(answers).length);
        },
      };
    },
  },
  'POST /api/v2/developers/sessions/{id}/turns': {
    kind: 'action',
    prepare: async (env) => {
      const id = await session(env);
      return {
        request: {
          method: 'POST',
          path: `${P}/sessions/${id}/turns`,
          token: env.dev.testKey,
          body: { text: 'Hello there' },
        },
        // a turn of a session answering another turn is a 409 (docs/api-contract.md "Error codes")
        alsoAllowed: [409],
        check: async (answers) => {
          expect((await sessionOf(env, id)).turnCount).toBe(successes(answers).length);
          expect(new Set(successes(answers).map((a) => a.body.data.index)).size).toBe(
            successes(answers).length,
          );
        },
      };
    },
  },
  'POST /api/v2/developers/sessions/{id}/end': {
    kind: 'action',
    prepare: async (env) => {
      const id = await session(env);
      return {
        request: { method: 'POST', path: `${P}/sessions/${id}/end`, token: env.dev.testKey },
        check: async (answers) => {
          expect(successes(answers).map((a) => a.body.data.status)).toEqual(
            Array(successes(answers).length).fill('ended'),
          );
          expect((await sessionOf(env, id)).status).toBe('ended');
          // ended once: one session.ended event
          const ended = () =>
            count(env.app, "select count(*) from events where type = 'session.ended' and payload like ?", [
              `%${id}%`,
            ]);
          await eventually(async () => (await ended()) > 0);
          await new Promise((r) => setTimeout(r, 300));
          expect(await ended()).toBe(1);
        },
      };
    },
  },
  'DELETE /api/v2/developers/sessions/{id}': {
    kind: 'delete',
    prepare: async (env) => {
      const id = await session(env);
      await ok(
        v2({ ...env, dev: { ...env.dev, liveKey: env.dev.testKey } }, 'POST', `/sessions/${id}/end`),
        'end',
      );
      return {
        request: { method: 'DELETE', path: `${P}/sessions/${id}`, token: env.dev.testKey },
        check: async () => {
          expect(await count(env.app, 'select count(*) from sessions where id = ?', [id])).toBe(0);
        },
      };
    },
  },
  'POST /api/v2/developers/sessions/{id}/client-token': {
    kind: 'action',
    prepare: async (env) => {
      const id = await session(env);
      return {
        request: { method: 'POST', path: `${P}/sessions/${id}/client-token`, token: env.dev.testKey },
        check: async (answers) => {
          expect(new Set(successes(answers).map((a) => a.body.data.token)).size).toBeGreaterThan(0);
          expect((await sessionOf(env, id)).status).toBe('active');
        },
      };
    },
  },
};

import type { MutationTable } from '../concurrent-mutations';
import { successes } from '../concurrent-mutations';
import { admin, type BaseEnv, count, ok, publishedPersona, v1 } from './fixtures';

const personaOf = async (env: BaseEnv, id: string) => (await v1(env, 'GET', `/personas/${id}`)).body.persona;

/** A persona with two approved versions, the second live. */
async function twiceApproved(env: BaseEnv): Promise<string> {
  const id = await publishedPersona(env);
  await ok(v1(env, 'POST', `/personas/${id}/revise`), 'revise persona');
  await ok(v1(env, 'POST', `/personas/${id}/submit`), 'submit revision');
  await ok(admin(env, 'POST', `/personas/${id}/review`, { decision: 'approve' }), 'approve revision');
  return id;
}

/** Persona versions (issue 27, item 4): revise and rollback, raced. */
export const personaVersionCases: MutationTable<BaseEnv> = {
  'POST /api/v1/developers/personas/{id}/revise': {
    kind: 'action',
    prepare: async (env) => {
      const id = await publishedPersona(env);
      return {
        request: { method: 'POST', path: `/api/v1/developers/personas/${id}/revise`, token: env.dev.token },
        check: async (answers) => {
          // an open revision answers as it is: every request succeeds, the live version stays
          expect(successes(answers)).toHaveLength(answers.length);
          expect(await personaOf(env, id)).toMatchObject({ status: 'draft', liveVersion: 1 });
        },
      };
    },
  },
  'POST /api/v1/developers/personas/{id}/rollback': {
    kind: 'action',
    prepare: async (env) => {
      const id = await twiceApproved(env);
      return {
        request: {
          method: 'POST',
          path: `/api/v1/developers/personas/${id}/rollback`,
          token: env.dev.token,
          body: { version: 1 },
        },
        check: async (answers) => {
          expect(successes(answers)).toHaveLength(answers.length);
          expect((await personaOf(env, id)).liveVersion).toBe(1);
          const events = "select count(*) from events where type = 'persona.rolled_back' and persona_id = ?";
          expect(await count(env.app, events, [id])).toBe(1); // the live version again emits nothing
        },
      };
    },
  },
};

import type { MutationTable } from '../concurrent-mutations';
import { expectOneOf, successes } from '../concurrent-mutations';
import { TEST_ADMIN_TOKEN } from '../env';
import { completeManifest } from '../personas';
import {
  admin,
  type BaseEnv,
  count,
  draftPersona,
  ok,
  publishedPersona,
  submittedPersona,
  unique,
  v1,
} from './fixtures';
import { personaVersionCases } from './persona-versions';
import { settingsCases } from './settings';

const reviewsOf = (env: BaseEnv, personaId: string) =>
  count(env.app, 'select count(*) from reviews where subject_id = ?', [personaId]);
const statusOf = async (env: BaseEnv, personaId: string) =>
  (await v1(env, 'GET', `/personas/${personaId}`)).body.persona.status as string;

/** The console API (/api/v1/developers) and the operator's account and persona routes. */
export const consoleCases: MutationTable<BaseEnv> = {
  ...personaVersionCases,
  ...settingsCases,
  'POST /api/v1/developers/keys': {
    kind: 'create',
    prepare: async (env) => {
      const before = (await v1(env, 'GET', '/keys')).body.keys.length;
      return {
        request: {
          method: 'POST',
          path: '/api/v1/developers/keys',
          token: env.dev.token,
          body: { name: 'race' },
        },
        check: async (answers) => {
          const keys = new Set(successes(answers).map((a) => a.body.key.fullKey));
          expect(keys.size).toBe(successes(answers).length);
          expect((await v1(env, 'GET', '/keys')).body.keys.length).toBe(before + keys.size);
        },
      };
    },
  },
  'DELETE /api/v1/developers/keys/{id}': {
    kind: 'delete',
    prepare: async (env) => {
      const key = await ok(v1(env, 'POST', '/keys', { name: 'to revoke' }), 'create key');
      const id = key.body.key.id as string;
      return {
        request: { method: 'DELETE', path: `/api/v1/developers/keys/${id}`, token: env.dev.token },
        check: async () => {
          const listed = (await v1(env, 'GET', '/keys')).body.keys.map((k: { id: string }) => k.id);
          expect(listed).not.toContain(id);
        },
      };
    },
  },
  'POST /api/v1/developers/voices/preview': {
    kind: 'action',
    prepare: async (env) => ({
      request: {
        method: 'POST',
        path: '/api/v1/developers/voices/preview',
        token: env.dev.token,
        body: { voice_id: 'espeak-en-us-aria', text: 'One moment please.' },
      },
      check: async (answers) => {
        const audio = new Set(successes(answers).map((a) => a.body.preview.audioUrl));
        expect(audio.size).toBe(1); // the same text in the same voice, whoever asked first
      },
    }),
  },
  'POST /api/v1/developers/personas': {
    kind: 'create',
    prepare: async (env) => {
      const before = (await v1(env, 'GET', '/personas')).body.personas.length;
      return {
        request: {
          method: 'POST',
          path: '/api/v1/developers/personas',
          token: env.dev.token,
          body: { manifest: completeManifest(unique('race-create')) },
        },
        check: async (answers) => {
          const after = (await v1(env, 'GET', '/personas')).body.personas.length;
          expect(after - before).toBe(successes(answers).length);
        },
      };
    },
  },
  'PUT /api/v1/developers/personas/{id}': {
    kind: 'replace',
    prepare: async (env) => {
      const id = await draftPersona(env);
      const manifest = { ...completeManifest(unique('race-put')), conversation: { language: 'en-US' } };
      return {
        request: {
          method: 'PUT',
          path: `/api/v1/developers/personas/${id}`,
          token: env.dev.token,
          body: { manifest },
        },
        check: async (answers) => {
          const current = (await v1(env, 'GET', `/personas/${id}`)).body.persona;
          const pick = (p: any) => ({ version: p.persona.version, manifest: p.persona.manifest });
          expectOneOf(pick({ persona: current }), answers, pick);
          // each PUT is one version: none lost, none counted twice
          expect(current.version).toBe(1 + successes(answers).length);
        },
      };
    },
  },
  'DELETE /api/v1/developers/personas/{id}': {
    kind: 'delete',
    prepare: async (env) => {
      const id = await submittedPersona(env);
      return {
        request: { method: 'DELETE', path: `/api/v1/developers/personas/${id}`, token: env.dev.token },
        check: async () => {
          expect((await v1(env, 'GET', `/personas/${id}`)).status).toBe(404);
          expect(
            await count(env.app, "select count(*) from reviews where subject_id = ? and status = 'pending'", [
              id,
            ]),
          ).toBe(0);
        },
      };
    },
  },
  'POST /api/v1/developers/personas/{id}/validate': {
    kind: 'action',
    prepare: async (env) => {
      const id = await draftPersona(env);
      return {
        request: { method: 'POST', path: `/api/v1/developers/personas/${id}/validate`, token: env.dev.token },
        check: async (answers) => {
          expect(new Set(answers.map((a) => JSON.stringify(a.body))).size).toBe(1);
          expect(answers[0].body.valid).toBe(true);
        },
      };
    },
  },
  'POST /api/v1/developers/personas/{id}/submit': {
    kind: 'action',
    prepare: async (env) => {
      const id = await draftPersona(env);
      return {
        request: { method: 'POST', path: `/api/v1/developers/personas/${id}/submit`, token: env.dev.token },
        alsoAllowed: [409], // only a draft or rejected persona is submitted (its description)
        check: async (answers) => {
          expect(successes(answers)).toHaveLength(1);
          expect(await reviewsOf(env, id)).toBe(1);
          expect(await statusOf(env, id)).toBe('submitted');
        },
      };
    },
  },
  'POST /api/v1/developers/personas/{id}/unpublish': {
    kind: 'action',
    prepare: async (env) => {
      const id = await publishedPersona(env);
      return {
        request: {
          method: 'POST',
          path: `/api/v1/developers/personas/${id}/unpublish`,
          token: env.dev.token,
        },
        alsoAllowed: [409], // only a published persona is unpublished
        check: async (answers) => {
          expect(successes(answers)).toHaveLength(1);
          expect(await statusOf(env, id)).toBe('draft');
        },
      };
    },
  },
  'PUT /api/admin/accounts/{publisherId}/plan': {
    kind: 'replace',
    prepare: async (env) => ({
      request: {
        method: 'PUT',
        path: `/api/admin/accounts/${env.dev.publisherId}/plan`,
        token: TEST_ADMIN_TOKEN,
        body: { plan: 'pro' },
      },
      check: async (answers) => {
        const me = (await v1(env, 'GET', '/me')).body;
        expectOneOf({ plan: me.plan }, answers, (a) => ({ plan: a.plan }));
        await ok(admin(env, 'PUT', `/accounts/${env.dev.publisherId}/plan`, { plan: 'free' }), 'plan back');
      },
    }),
  },
  'POST /api/admin/personas/{id}/review': {
    kind: 'action',
    prepare: async (env) => {
      const id = await submittedPersona(env);
      return {
        request: {
          method: 'POST',
          path: `/api/admin/personas/${id}/review`,
          token: TEST_ADMIN_TOKEN,
          body: { decision: 'approve', notes: 'fine' },
        },
        alsoAllowed: [409], // a second decision is a 409 (docs/api-contract.md "Operators")
        check: async (answers) => {
          expect(successes(answers)).toHaveLength(1);
          expect(await statusOf(env, id)).toBe('published');
          expect(
            await count(
              env.app,
              "select count(*) from reviews where subject_id = ? and status = 'approved'",
              [id],
            ),
          ).toBe(1);
        },
      };
    },
  },
};

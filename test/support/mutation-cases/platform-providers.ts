import { providerCredentials } from '../../../src/providers';
import type { MutationTable } from '../concurrent-mutations';
import { successes } from '../concurrent-mutations';
import { count, ok, unique, v2 } from './fixtures';
import { P, type PlatformEnv } from './platform-fixtures';

async function provider(env: PlatformEnv): Promise<string> {
  const res = await ok(
    v2(env, 'POST', '/providers', {
      name: unique('model'),
      kind: 'chat',
      preset: 'openai',
      apiKey: 'sk-race',
    }),
    'connect provider',
  );
  return res.body.data.id as string;
}

/** The account's providers (docs/providers.md), raced: a name is taken once, a delete happens once. */
export const platformProviderCases: MutationTable<PlatformEnv> = {
  'POST /api/v2/developers/providers': {
    kind: 'create',
    prepare: async (env) => {
      const name = unique('same-name');
      return {
        request: {
          method: 'POST',
          path: `${P}/providers`,
          token: env.dev.liveKey,
          body: { name, kind: 'chat', preset: 'openai', apiKey: 'sk-race' },
        },
        alsoAllowed: [409], // the name is taken
        check: async (answers) => {
          expect(successes(answers)).toHaveLength(1);
          expect(await count(env.app, 'select count(*) from providers where name = ?', [name])).toBe(1);
        },
      };
    },
  },
  'PATCH /api/v2/developers/providers/{id}': {
    kind: 'action',
    prepare: async (env) => {
      const id = await provider(env);
      return {
        request: {
          method: 'PATCH',
          path: `${P}/providers/${id}`,
          token: env.dev.liveKey,
          body: { apiKey: 'sk-new' },
        },
        check: async (answers) => {
          expect(successes(answers)).toHaveLength(answers.length);
          // the key is one whole new value (no torn write), read as the platform reads it
          const found = await providerCredentials(
            env.app.ctx.orm.em,
            env.app.ctx.encryptor,
            env.dev.publisherId,
            id,
            'chat',
          );
          expect(found?.apiKey).toBe('sk-new');
        },
      };
    },
  },
  'DELETE /api/v2/developers/providers/{id}': {
    kind: 'delete',
    prepare: async (env) => {
      const id = await provider(env);
      return {
        request: { method: 'DELETE', path: `${P}/providers/${id}`, token: env.dev.liveKey },
        check: async (answers) => {
          expect(successes(answers)).toHaveLength(1);
          expect(await count(env.app, 'select count(*) from providers where id = ?', [id])).toBe(0);
        },
      };
    },
  },
};

import type { MutationTable } from '../concurrent-mutations';
import { successes } from '../concurrent-mutations';
import { type BaseEnv, ok, v1 } from './fixtures';

/** The account's settings (issue 27, item 3: `requirePassingTests`), raced. */
export const settingsCases: MutationTable<BaseEnv> = {
  'PATCH /api/v1/developers/settings': {
    kind: 'replace',
    prepare: async (env) => ({
      request: {
        method: 'PATCH',
        path: '/api/v1/developers/settings',
        token: env.dev.token,
        body: { requirePassingTests: true },
      },
      check: async (answers) => {
        expect(successes(answers).map((a) => a.body)).toEqual(
          answers.map(() => ({ requirePassingTests: true })),
        );
        expect((await v1(env, 'GET', '/settings')).body).toEqual({ requirePassingTests: true });
        // the other cases submit personas: they keep the default
        await ok(v1(env, 'PATCH', '/settings', { requirePassingTests: false }), 'reset settings');
      },
    }),
  },
};

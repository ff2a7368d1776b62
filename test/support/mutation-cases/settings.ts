import type { MutationTable } from '../concurrent-mutations';
import { successes } from '../concurrent-mutations';
import { TEST_ADMIN_TOKEN } from '../env';
import { admin, type BaseEnv, ok, v1 } from './fixtures';

/** The account's settings (issue 27, item 3: `requirePassingTests`), and its reviewer mark, raced. */
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
  'PUT /api/admin/accounts/{publisherId}/reviewer': {
    kind: 'replace',
    prepare: async (env) => ({
      request: {
        method: 'PUT',
        path: `/api/admin/accounts/${env.dev.publisherId}/reviewer`,
        token: TEST_ADMIN_TOKEN,
        body: { reviewer: true },
      },
      check: async (answers) => {
        expect(successes(answers).every((a) => a.body.reviewer === true)).toBe(true);
        const listed = (await admin(env, 'GET', '/reviewers')).body.reviewers as { publisherId: string }[];
        expect(listed.filter((r) => r.publisherId === env.dev.publisherId)).toHaveLength(1);
        await ok(
          admin(env, 'PUT', `/accounts/${env.dev.publisherId}/reviewer`, { reviewer: false }),
          'unmark',
        );
      },
    }),
  },
};

import type { MutationTable } from '../concurrent-mutations';
import { successes } from '../concurrent-mutations';
import { freshNumber, twilioCredentials } from '../phone-numbers';
import { call } from '../test-app';
import { type BaseEnv, count, draftPersona, ok, rows } from './fixtures';
import { P } from './platform-fixtures';

/** The sandbox key: a test number may have a draft persona, so no review is needed. */
const sandbox = (env: BaseEnv, method: string, path: string, body?: unknown) =>
  call(env.app.baseUrl, method, `${P}${path}`, { token: env.dev.testKey, body });

/** A Twilio number of the race's developer. The run's carrier is a closed local port (test/support/env.ts). */
async function phoneNumber(env: BaseEnv): Promise<string> {
  const body = {
    number: freshNumber(),
    provider: 'twilio',
    personaId: await draftPersona(env),
    credentials: twilioCredentials(),
  };
  return (await ok(sandbox(env, 'POST', '/phone-numbers', body), 'create phone number')).body.data
    .id as string;
}

/** Calls (docs/api-contract.md "Calls"). */
export const platformCallCases: MutationTable<BaseEnv> = {
  'POST /api/v2/developers/calls': {
    kind: 'create',
    prepare: async (env) => {
      const phoneNumberId = await phoneNumber(env);
      const unfinished = await count(
        env.app,
        `select count(*) from calls where account_id = ? and environment = 'test' and status in ('queued', 'ringing', 'in-progress')`,
        [env.dev.publisherId],
      );
      const body = { phoneNumberId, to: '+14155550160' };
      return {
        request: { method: 'POST', path: `${P}/calls`, token: env.dev.testKey, body },
        alsoAllowed: [403], // past the plan's calls at once: PLAN_LIMIT_REACHED
        check: async (answers) => {
          const created = await count(env.app, 'select count(*) from calls where phone_number_id = ?', [
            phoneNumberId,
          ]);
          expect(successes(answers)).toHaveLength(created);
          // the free plan's 2 calls at once hold under the race (a lock per account and environment)
          expect(unfinished + created).toBeLessThanOrEqual(2);
          for (const a of answers.filter((x) => x.status === 403))
            expect(a.body.code).toBe('PLAN_LIMIT_REACHED');
        },
      };
    },
  },
  'POST /api/v2/developers/calls/{id}/hangup': {
    kind: 'action',
    prepare: async (env) => {
      // the developer's earlier calls are ended first: the free plan allows 2 at once
      for (const c of await rows(env.app, `select id from calls where account_id = ? and ended_at is null`, [
        env.dev.publisherId,
      ])) {
        await sandbox(env, 'POST', `/calls/${c.id}/hangup`);
      }
      const phoneNumberId = await phoneNumber(env);
      const placed = await ok(
        sandbox(env, 'POST', '/calls', { phoneNumberId, to: '+14155550161' }),
        'place call',
      );
      const id = placed.body.data.id as string;
      return {
        request: { method: 'POST', path: `${P}/calls/${id}/hangup`, token: env.dev.testKey },
        check: async () => {
          const current = (await sandbox(env, 'GET', `/calls/${id}`)).body.data;
          expect(current).toMatchObject({ status: 'canceled', endedReason: 'hangup' });
        },
      };
    },
  },
};

import type { MutationTable } from '../concurrent-mutations';
import { expectOneOf, successes } from '../concurrent-mutations';
import { freshNumber, twilioCredentials } from '../phone-numbers';
import { call } from '../test-app';
import { type BaseEnv, count, draftPersona, ok } from './fixtures';
import { P } from './platform-fixtures';

/** The sandbox key: a test number may have a draft persona, so no review is needed. */
const sandbox = (env: BaseEnv, method: string, path: string, body?: unknown) =>
  call(env.app.baseUrl, method, `${P}${path}`, { token: env.dev.testKey, body });

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

/** Phone numbers (docs/api-contract.md "Phone numbers"). */
export const platformPhoneCases: MutationTable<BaseEnv> = {
  'POST /api/v2/developers/phone-numbers': {
    kind: 'create',
    prepare: async (env) => {
      const number = freshNumber();
      const body = {
        number,
        provider: 'twilio',
        personaId: await draftPersona(env),
        credentials: twilioCredentials(),
      };
      return {
        request: { method: 'POST', path: `${P}/phone-numbers`, token: env.dev.testKey, body },
        alsoAllowed: [409], // the same number again: CONFLICT
        check: async (answers) => {
          expect(successes(answers)).toHaveLength(1);
          expect(answers.filter((a) => a.status === 409).map((a) => a.body.code)).toEqual(
            Array(9).fill('CONFLICT'),
          );
          const sql = 'select count(*) from phone_numbers where account_id = ? and number = ?';
          expect(await count(env.app, sql, [env.dev.publisherId, number])).toBe(1);
        },
      };
    },
  },
  'PUT /api/v2/developers/phone-numbers/{id}': {
    kind: 'replace',
    prepare: async (env) => {
      const id = await phoneNumber(env);
      const body = { name: 'renamed', personaId: await draftPersona(env), credentials: twilioCredentials() };
      return {
        request: { method: 'PUT', path: `${P}/phone-numbers/${id}`, token: env.dev.testKey, body },
        check: async (answers) => {
          const current = (await sandbox(env, 'GET', `/phone-numbers/${id}`)).body.data;
          const pick = (n: any) => ({ name: n.name, personaId: n.personaId });
          expectOneOf(pick(current), answers, pick);
        },
      };
    },
  },
  'DELETE /api/v2/developers/phone-numbers/{id}': {
    kind: 'delete',
    prepare: async (env) => {
      const id = await phoneNumber(env);
      return {
        request: { method: 'DELETE', path: `${P}/phone-numbers/${id}`, token: env.dev.testKey },
        check: async () => expect((await sandbox(env, 'GET', `/phone-numbers/${id}`)).status).toBe(404),
      };
    },
  },
};

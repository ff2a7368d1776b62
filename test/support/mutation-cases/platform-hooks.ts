import type { MutationTable } from '../concurrent-mutations';
import { expectOneOf, successes } from '../concurrent-mutations';
import { count, ok, unique, v2 } from './fixtures';
import { oauthToken, P, type PlatformEnv, provider, total, webhook } from './platform-fixtures';

export type { PlatformEnv } from './platform-fixtures';

/** Secrets, webhooks, sample events and OAuth on the platform API. */
export const platformHookCases: MutationTable<PlatformEnv> = {
  'PUT /api/v2/developers/secrets/{name}': {
    kind: 'replace',
    prepare: async (env) => {
      const name = unique('RACE').replaceAll('-', '_');
      return {
        request: {
          method: 'PUT',
          path: `${P}/secrets/${name}`,
          token: env.dev.liveKey,
          body: { value: 'v'.repeat(24) },
        },
        check: async (answers) => {
          expect(answers.filter((a) => a.status === 201)).toHaveLength(1);
          const names = (await v2(env, 'GET', '/secrets?limit=200')).body.data.map(
            (s: { name: string }) => s.name,
          );
          expect(names.filter((n: string) => n === name)).toHaveLength(1);
        },
      };
    },
  },
  'DELETE /api/v2/developers/secrets/{name}': {
    kind: 'delete',
    prepare: async (env) => {
      const name = unique('GONE').replaceAll('-', '_');
      await ok(v2(env, 'PUT', `/secrets/${name}`, { value: 'v'.repeat(24) }), 'put secret');
      return {
        request: { method: 'DELETE', path: `${P}/secrets/${name}`, token: env.dev.liveKey },
        check: async () => {
          const names = (await v2(env, 'GET', '/secrets?limit=200')).body.data.map(
            (s: { name: string }) => s.name,
          );
          expect(names).not.toContain(name);
        },
      };
    },
  },
  'POST /api/v2/developers/webhooks': {
    kind: 'create',
    prepare: async (env) => {
      const fresh = await env.freshDeveloper(); // free plan: 5 webhooks, so half of the ten are refused
      return {
        request: {
          method: 'POST',
          path: `${P}/webhooks`,
          token: fresh.liveKey,
          body: { name: 'race', url: env.receiver.url, events: ['session.started'] },
        },
        alsoAllowed: [403], // PLAN_LIMIT_REACHED
        check: async (answers) => {
          expect(successes(answers)).toHaveLength(5);
          expect(answers.filter((a) => a.status === 403).map((a) => a.body.code)).toEqual(
            Array(5).fill('PLAN_LIMIT_REACHED'),
          );
          expect(await total({ ...env, dev: fresh }, '/webhooks')).toBe(5);
        },
      };
    },
  },
  'PUT /api/v2/developers/webhooks/{id}': {
    kind: 'replace',
    prepare: async (env) => {
      const id = await webhook(env);
      const body = { name: 'renamed', events: ['session.ended', 'tool.called'], enabled: false };
      return {
        request: { method: 'PUT', path: `${P}/webhooks/${id}`, token: env.dev.liveKey, body },
        check: async (answers) => {
          const current = (await v2(env, 'GET', `/webhooks/${id}`)).body.data;
          const pick = (w: any) => ({ name: w.name, events: w.events, enabled: w.enabled });
          expectOneOf(pick(current), answers, pick);
        },
      };
    },
  },
  'DELETE /api/v2/developers/webhooks/{id}': {
    kind: 'delete',
    prepare: async (env) => {
      const id = await webhook(env);
      return {
        request: { method: 'DELETE', path: `${P}/webhooks/${id}`, token: env.dev.liveKey },
        check: async () => expect((await v2(env, 'GET', `/webhooks/${id}`)).status).toBe(404),
      };
    },
  },
  'POST /api/v2/developers/webhooks/{id}/test': {
    kind: 'action',
    prepare: async (env) => {
      const id = await webhook(env);
      return {
        request: { method: 'POST', path: `${P}/webhooks/${id}/test`, token: env.dev.liveKey },
        check: async (answers) => {
          // each test is one delivery of its own
          const deliveries = new Set(successes(answers).map((a) => a.body.data.deliveryId));
          expect(deliveries.size).toBe(successes(answers).length);
          expect(await count(env.app, 'select count(*) from deliveries where webhook_id = ?', [id])).toBe(
            deliveries.size,
          );
        },
      };
    },
  },
  'POST /api/v2/developers/webhooks/{id}/rotate-secret': {
    kind: 'action',
    prepare: async (env) => {
      const id = await webhook(env);
      return {
        request: { method: 'POST', path: `${P}/webhooks/${id}/rotate-secret`, token: env.dev.liveKey },
        // serialized on the webhook's row: ten secrets, each live when answered (P14 checks the signing)
        check: async (answers) => {
          expect(successes(answers)).toHaveLength(answers.length);
          expect(new Set(answers.map((a) => a.body.data.secret)).size).toBe(answers.length);
        },
      };
    },
  },
  'POST /api/v2/developers/webhooks/{id}/logs/{deliveryId}/retry': {
    kind: 'action',
    prepare: async (env) => {
      const id = await webhook(env);
      const tested = await ok(v2(env, 'POST', `/webhooks/${id}/test`), 'test webhook');
      const deliveryId = tested.body.data.deliveryId as string;
      return {
        request: {
          method: 'POST',
          path: `${P}/webhooks/${id}/logs/${deliveryId}/retry`,
          token: env.dev.liveKey,
        },
        check: async (answers) => {
          // each replay answered is one new delivery of the same event
          const replays = await count(env.app, 'select count(*) from deliveries where replay_of = ?', [
            deliveryId,
          ]);
          expect(replays).toBe(successes(answers).length);
        },
      };
    },
  },
  'POST /api/v2/developers/webhooks/{id}/recover': {
    kind: 'action',
    prepare: async (env) => {
      const id = await webhook(env);
      return {
        request: {
          method: 'POST',
          path: `${P}/webhooks/${id}/recover`,
          token: env.dev.liveKey,
          body: { since: new Date(Date.now() - 60_000).toISOString() },
        },
        // serialized on the webhook's row: one recovery at a time, the others 409 while it runs
        alsoAllowed: [409],
        check: async (answers) => {
          const recoveries = await count(
            env.app,
            'select count(*) from webhook_recoveries where webhook_id = ?',
            [id],
          );
          expect(recoveries).toBe(successes(answers).length);
        },
      };
    },
  },
  'POST /api/v2/developers/events/trigger': {
    kind: 'create',
    prepare: async (env) => {
      const eventsNow = () =>
        count(
          env.app,
          "select count(*) from events where account_id = ? and environment = 'test' and type = 'tool.failed'",
          [env.dev.publisherId],
        );
      const before = await eventsNow();
      return {
        request: {
          method: 'POST',
          path: `${P}/events/trigger`,
          token: env.dev.testKey,
          body: { type: 'tool.failed' },
        },
        check: async (answers) => expect((await eventsNow()) - before).toBe(successes(answers).length),
      };
    },
  },
  'POST /api/v2/developers/oauth/providers': {
    kind: 'create',
    prepare: async (env) => {
      const before = await total(env, '/oauth/providers');
      const base = env.receiver.url.replace('/hooks', '');
      const body = {
        name: 'race',
        authorizationUrl: `${base}/authorize`,
        tokenUrl: `${base}/token`,
        clientId: 'c',
        clientSecret: 's'.repeat(12),
      };
      return {
        request: { method: 'POST', path: `${P}/oauth/providers`, token: env.dev.liveKey, body },
        check: async (answers) =>
          expect((await total(env, '/oauth/providers')) - before).toBe(successes(answers).length),
      };
    },
  },
  'PUT /api/v2/developers/oauth/providers/{id}': {
    kind: 'replace',
    prepare: async (env) => {
      const id = await provider(env);
      const body = { name: 'Calendar 2', scopes: ['calendar.write'], clientSecret: 'another-secret-1' };
      return {
        request: { method: 'PUT', path: `${P}/oauth/providers/${id}`, token: env.dev.liveKey, body },
        check: async (answers) => {
          const current = (await v2(env, 'GET', `/oauth/providers/${id}`)).body.data;
          const pick = (p: any) => ({ name: p.name, scopes: p.scopes });
          expectOneOf(pick(current), answers, pick);
        },
      };
    },
  },
  'DELETE /api/v2/developers/oauth/providers/{id}': {
    kind: 'delete',
    prepare: async (env) => {
      const id = await provider(env);
      return {
        request: { method: 'DELETE', path: `${P}/oauth/providers/${id}`, token: env.dev.liveKey },
        check: async () => expect((await v2(env, 'GET', `/oauth/providers/${id}`)).status).toBe(404),
      };
    },
  },
  'POST /api/v2/developers/oauth/authorize': {
    kind: 'create',
    prepare: async (env) => {
      const providerId = await provider(env);
      const pending = () =>
        count(env.app, 'select count(*) from oauth_authorizations where provider_id = ?', [providerId]);
      return {
        request: {
          method: 'POST',
          path: `${P}/oauth/authorize`,
          token: env.dev.liveKey,
          body: { providerId },
        },
        check: async (answers) => {
          const states = new Set(successes(answers).map((a) => a.body.data.state));
          expect(states.size).toBe(successes(answers).length);
          expect(await pending()).toBe(states.size);
        },
      };
    },
  },
  'DELETE /api/v2/developers/oauth/tokens/{id}': {
    kind: 'delete',
    prepare: async (env) => {
      const id = await oauthToken(env);
      const before = env.revocations.requests.length;
      return {
        request: { method: 'DELETE', path: `${P}/oauth/tokens/${id}`, token: env.dev.liveKey },
        alsoAllowed: [409], // a revoked token stays listed: revoking it again is a 409 (docs/tools.md)
        check: async () => {
          expect(env.revocations.requests.length - before).toBe(1); // revoked at the provider once
          const listed = (await v2(env, 'GET', '/oauth/tokens?limit=200')).body.data.find(
            (t: any) => t.id === id,
          );
          expect(listed.status).toBe('revoked');
        },
      };
    },
  },
};

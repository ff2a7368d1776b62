import type { MutationTable } from '../concurrent-mutations';
import { expectOneOf, successes } from '../concurrent-mutations';
import { count, ok, unique, v2 } from './fixtures';
import { P, type PlatformEnv, total } from './platform-fixtures';
import { platformProviderCases } from './platform-providers';

async function mcpServer(env: PlatformEnv): Promise<string> {
  const res = await ok(
    v2(env, 'POST', '/mcp-servers', {
      name: unique('orders'),
      transport: 'http',
      endpoint: env.mcp.url,
      autoConnect: false,
    }),
    'register MCP server',
  );
  return res.body.data.id as string;
}

async function webhookTool(env: PlatformEnv): Promise<string> {
  const res = await ok(
    v2(env, 'POST', '/tools', {
      name: 'create_ticket',
      type: 'webhook',
      config: { url: env.receiver.url, method: 'POST' },
    }),
    'create tool',
  );
  return res.body.data.id as string;
}

async function activity(env: PlatformEnv): Promise<string> {
  const res = await ok(
    v2(env, 'POST', '/activities', { type: 'order.placed', payload: { total: 5 } }),
    'log activity',
  );
  return res.body.data.id as string;
}

/** The activity counts the stats read (kept by triggers) agree with the activities stored, for `type`. */
async function expectStatsAgree(env: PlatformEnv, type: string) {
  const stats = (await v2(env, 'GET', `/activities/stats?type=${type}`)).body.data.groups;
  expect(stats[0]?.count ?? 0).toBe(await total(env, `/activities?type=${type}`));
}

/** MCP servers, custom tools and activities on the platform API. */
export const platformToolCases: MutationTable<PlatformEnv> = {
  ...platformProviderCases,
  'POST /api/v2/developers/mcp-servers': {
    kind: 'create',
    prepare: async (env) => {
      const fresh = await env.freshDeveloper(); // free plan: 3 MCP servers, so seven of the ten are refused
      return {
        request: {
          method: 'POST',
          path: `${P}/mcp-servers`,
          token: fresh.liveKey,
          body: { name: 'orders', transport: 'http', endpoint: env.mcp.url, autoConnect: false },
        },
        alsoAllowed: [403], // PLAN_LIMIT_REACHED
        check: async (answers) => {
          expect(successes(answers)).toHaveLength(3);
          expect(await total({ ...env, dev: fresh }, '/mcp-servers')).toBe(3);
        },
      };
    },
  },
  'PUT /api/v2/developers/mcp-servers/{id}': {
    kind: 'replace',
    prepare: async (env) => {
      const id = await mcpServer(env);
      const body = {
        name: 'orders v2',
        description: 'Order tools',
        autoConnect: true,
        endpoint: env.mcp.url,
      };
      return {
        request: { method: 'PUT', path: `${P}/mcp-servers/${id}`, token: env.dev.liveKey, body },
        check: async (answers) => {
          const current = (await v2(env, 'GET', `/mcp-servers/${id}`)).body.data;
          const pick = (s: any) => ({ name: s.name, description: s.description, autoConnect: s.autoConnect });
          expectOneOf(pick(current), answers, pick);
        },
      };
    },
  },
  'DELETE /api/v2/developers/mcp-servers/{id}': {
    kind: 'delete',
    prepare: async (env) => {
      const id = await mcpServer(env);
      return {
        request: { method: 'DELETE', path: `${P}/mcp-servers/${id}`, token: env.dev.liveKey },
        check: async () => expect((await v2(env, 'GET', `/mcp-servers/${id}`)).status).toBe(404),
      };
    },
  },
  'POST /api/v2/developers/mcp-servers/{id}/test': {
    kind: 'action',
    prepare: async (env) => {
      const id = await mcpServer(env);
      return {
        request: { method: 'POST', path: `${P}/mcp-servers/${id}/test`, token: env.dev.liveKey },
        check: async (answers) => {
          expect(successes(answers).every((a) => a.body.data.connected)).toBe(true);
          const current = (await v2(env, 'GET', `/mcp-servers/${id}`)).body.data;
          expect(current).toMatchObject({ status: 'connected', toolCount: answers[0].body.data.toolCount });
        },
      };
    },
  },
  'POST /api/v2/developers/tools': {
    kind: 'create',
    prepare: async (env) => {
      const before = await total(env, '/tools');
      const body = { name: 'race_tool', type: 'webhook', config: { url: env.receiver.url, method: 'POST' } };
      return {
        request: { method: 'POST', path: `${P}/tools`, token: env.dev.liveKey, body },
        check: async (answers) =>
          expect((await total(env, '/tools')) - before).toBe(successes(answers).length),
      };
    },
  },
  'PUT /api/v2/developers/tools/{id}': {
    kind: 'replace',
    prepare: async (env) => {
      const id = await webhookTool(env);
      const body = {
        name: 'update_ticket',
        description: 'Updates a ticket',
        config: { url: env.receiver.url, method: 'PUT' },
      };
      return {
        request: { method: 'PUT', path: `${P}/tools/${id}`, token: env.dev.liveKey, body },
        check: async (answers) => {
          const current = (await v2(env, 'GET', `/tools/${id}`)).body.data;
          const pick = (t: any) => ({ name: t.name, description: t.description, config: t.config });
          expectOneOf(pick(current), answers, pick);
        },
      };
    },
  },
  'DELETE /api/v2/developers/tools/{id}': {
    kind: 'delete',
    prepare: async (env) => {
      const id = await webhookTool(env);
      return {
        request: { method: 'DELETE', path: `${P}/tools/${id}`, token: env.dev.liveKey },
        check: async () => expect((await v2(env, 'GET', `/tools/${id}`)).status).toBe(404),
      };
    },
  },
  'POST /api/v2/developers/tools/{id}/test': {
    kind: 'action',
    prepare: async (env) => {
      const id = await webhookTool(env);
      const before = env.receiver.requests.length;
      return {
        request: {
          method: 'POST',
          path: `${P}/tools/${id}/test`,
          token: env.dev.liveKey,
          body: { arguments: {} },
        },
        check: async (answers) => {
          // each test is one call of the tool
          expect(successes(answers).every((a) => a.body.data.success)).toBe(true);
          expect(env.receiver.requests.length - before).toBe(successes(answers).length);
        },
      };
    },
  },
  'POST /api/v2/developers/activities': {
    kind: 'create',
    prepare: async (env) => {
      const before = await total(env, '/activities?type=race.logged');
      const events = () =>
        count(
          env.app,
          "select count(*) from events where account_id = ? and type = 'activity.created' and payload like ?",
          [env.dev.publisherId, '%race.logged%'],
        );
      const eventsBefore = await events();
      return {
        request: {
          method: 'POST',
          path: `${P}/activities`,
          token: env.dev.liveKey,
          body: { type: 'race.logged', payload: { n: 1 } },
        },
        check: async (answers) => {
          expect((await total(env, '/activities?type=race.logged')) - before).toBe(successes(answers).length);
          expect((await events()) - eventsBefore).toBe(successes(answers).length);
        },
      };
    },
  },
  'PUT /api/v2/developers/activities/{id}': {
    kind: 'replace',
    prepare: async (env) => {
      const id = await activity(env);
      const body = { type: 'order.shipped', payload: { total: 6 } };
      return {
        request: { method: 'PUT', path: `${P}/activities/${id}`, token: env.dev.liveKey, body },
        check: async (answers) => {
          const current = (await v2(env, 'GET', `/activities/${id}`)).body.data;
          const pick = (a: any) => ({ type: a.type, payload: a.payload });
          expectOneOf(pick(current), answers, pick);
          await expectStatsAgree(env, 'order.placed');
          await expectStatsAgree(env, 'order.shipped');
        },
      };
    },
  },
  'DELETE /api/v2/developers/activities/{id}': {
    kind: 'delete',
    prepare: async (env) => {
      const id = await activity(env);
      return {
        request: { method: 'DELETE', path: `${P}/activities/${id}`, token: env.dev.liveKey },
        check: async () => {
          expect((await v2(env, 'GET', `/activities/${id}`)).status).toBe(404);
          await expectStatsAgree(env, 'order.placed');
        },
      };
    },
  },
};

import type { MutationTable } from '../concurrent-mutations';
import { expectOneOf, successes } from '../concurrent-mutations';
import { TEST_ADMIN_TOKEN } from '../env';
import { eventually } from '../receiver';
import { call } from '../test-app';
import { count, ok, unique } from './fixtures';
import {
  agentSession,
  approvedItem,
  installed,
  itemRow,
  M,
  type MarketplaceEnv,
  PUBLISHER,
  send,
  submit,
  toolManifest,
  usageOf,
  userHeaders,
} from './marketplace-fixtures';

export type { MarketplaceEnv } from './marketplace-fixtures';

/** The marketplace API, and the operator's marketplace review and publisher verification. */
export const marketplaceCases: MutationTable<MarketplaceEnv> = {
  'POST /api/marketplace/publisher/submit': {
    kind: 'action',
    prepare: async (env) => {
      const id = unique('tool');
      return {
        request: {
          method: 'POST',
          path: `${M}/publisher/submit`,
          headers: PUBLISHER,
          body: { type: 'tool', manifest: toolManifest(env, id) },
        },
        alsoAllowed: [409], // a taken id is a 409 (docs/api-contract.md "Marketplace manifests")
        check: async (answers) => {
          expect(successes(answers)).toHaveLength(1);
          expect(
            await count(env.app, 'select count(*) from marketplace_item_versions where item_id = ?', [id]),
          ).toBe(1);
          expect(await count(env.app, 'select count(*) from reviews where subject_id = ?', [id])).toBe(1);
        },
      };
    },
  },
  'POST /api/marketplace/publisher/validate': {
    kind: 'action',
    prepare: async (env) => ({
      request: {
        method: 'POST',
        path: `${M}/publisher/validate`,
        headers: PUBLISHER,
        body: { type: 'tool', manifest: toolManifest(env, unique('tool')) },
      },
      check: async (answers) => expect(new Set(answers.map((a) => JSON.stringify(a.body))).size).toBe(1),
    }),
  },
  'PUT /api/marketplace/publisher/{id}': {
    kind: 'action',
    prepare: async (env) => {
      const id = await approvedItem(env, 'tool');
      return {
        request: {
          method: 'PUT',
          path: `${M}/publisher/${id}`,
          headers: PUBLISHER,
          body: { manifest: toolManifest(env, id, '1.1.0') },
        },
        alsoAllowed: [409], // the same version again is a 409 (docs/api-contract.md "Marketplace manifests")
        check: async (answers) => {
          expect(successes(answers)).toHaveLength(1);
          expect(
            await count(env.app, 'select count(*) from marketplace_item_versions where item_id = ?', [id]),
          ).toBe(2);
          expect((await itemRow(env, id)).latest_version).toBe('1.1.0');
        },
      };
    },
  },
  'DELETE /api/marketplace/publisher/{id}': {
    kind: 'delete',
    prepare: async (env) => {
      const id = await approvedItem(env, 'tool');
      return {
        request: { method: 'DELETE', path: `${M}/publisher/${id}`, headers: PUBLISHER },
        alsoAllowed: [409], // already scheduled for removal (docs/marketplace.md "Removal")
        check: async () => {
          expect((await itemRow(env, id)).status).toBe('removal_scheduled');
          expect(
            await count(env.app, 'select count(*) from marketplace_removals where item_id = ?', [id]),
          ).toBe(1);
        },
      };
    },
  },
  'POST /api/marketplace/publisher/{id}/restore': {
    kind: 'action',
    prepare: async (env) => {
      const id = await approvedItem(env, 'tool');
      await ok(send(env, { method: 'DELETE', path: `${M}/publisher/${id}`, headers: PUBLISHER }), 'remove');
      return {
        request: { method: 'POST', path: `${M}/publisher/${id}/restore`, headers: PUBLISHER },
        alsoAllowed: [409], // not scheduled for removal (any more)
        check: async (answers) => {
          expect(successes(answers)).toHaveLength(1);
          expect((await itemRow(env, id)).status).toBe('approved');
        },
      };
    },
  },
  'POST /api/marketplace/execute/{itemId}': {
    kind: 'action',
    prepare: async (env) => {
      const itemId = await approvedItem(env, 'tool');
      const userId = unique('usr');
      await installed(env, 'tool', itemId, userId);
      return {
        request: {
          method: 'POST',
          path: `${M}/execute/${itemId}`,
          headers: userHeaders(userId),
          body: { arguments: { a: 1, b: 2 } },
        },
        check: async (answers) => {
          expect(successes(answers).every((a) => a.body.success)).toBe(true);
          expect(await usageOf(env, itemId)).toBe(successes(answers).length); // each run metered once
        },
      };
    },
  },
  'POST /api/marketplace/agents/{itemId}/sessions': {
    kind: 'create',
    prepare: async (env) => {
      const itemId = await approvedItem(env, 'agent');
      const userId = unique('usr');
      await installed(env, 'agent', itemId, userId);
      return {
        request: {
          method: 'POST',
          path: `${M}/agents/${itemId}/sessions`,
          headers: userHeaders(userId),
          body: {},
        },
        check: async (answers) => {
          const sessions = await count(env.app, 'select count(*) from sessions where user_id = ?', [userId]);
          expect(sessions).toBe(successes(answers).length);
        },
      };
    },
  },
  'POST /api/marketplace/agents/{itemId}/sessions/{sessionId}/turns': {
    kind: 'action',
    prepare: async (env) => {
      const { itemId, userId, sessionId } = await agentSession(env);
      return {
        request: {
          method: 'POST',
          path: `${M}/agents/${itemId}/sessions/${sessionId}/turns`,
          headers: userHeaders(userId),
          body: { text: 'Hello there' },
        },
        alsoAllowed: [409], // the session is answering another turn
        check: async (answers) => {
          const turns = await count(env.app, 'select count(*) from session_turns where session_id = ?', [
            sessionId,
          ]);
          expect(turns).toBe(successes(answers).length);
          // only turns taken are metered: a refused turn is not counted against the quota
          expect(await usageOf(env, itemId)).toBe(successes(answers).length);
        },
      };
    },
  },
  'POST /api/marketplace/agents/{itemId}/sessions/{sessionId}/end': {
    kind: 'action',
    prepare: async (env) => {
      const { itemId, userId, sessionId } = await agentSession(env);
      return {
        request: {
          method: 'POST',
          path: `${M}/agents/${itemId}/sessions/${sessionId}/end`,
          headers: userHeaders(userId),
        },
        check: async (answers) => {
          expect(successes(answers).every((a) => a.body.data.status === 'ended')).toBe(true);
          const ended = () =>
            count(env.app, "select count(*) from events where type = 'session.ended' and payload like ?", [
              `%${sessionId}%`,
            ]);
          await eventually(async () => (await ended()) > 0);
          await new Promise((r) => setTimeout(r, 300));
          expect(await ended()).toBe(1);
        },
      };
    },
  },
  'POST /api/admin/marketplace/items/{id}/review': {
    kind: 'action',
    prepare: async (env) => {
      const id = unique('tool');
      await submit(env, 'tool', toolManifest(env, id));
      return {
        request: {
          method: 'POST',
          path: `/api/admin/marketplace/items/${id}/review`,
          token: TEST_ADMIN_TOKEN,
          body: { decision: 'approve' },
        },
        alsoAllowed: [409], // a second decision is a 409 (docs/api-contract.md "Operators")
        check: async (answers) => {
          expect(successes(answers)).toHaveLength(1);
          expect((await itemRow(env, id)).status).toBe('approved');
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
  'PUT /api/admin/publishers/{id}/verification': {
    kind: 'replace',
    prepare: async (env) => {
      await approvedItem(env, 'tool');
      return {
        request: {
          method: 'PUT',
          path: '/api/admin/publishers/pub_races/verification',
          token: TEST_ADMIN_TOKEN,
          body: { verified: true },
        },
        check: async (answers) => {
          const profile = await call(env.app.baseUrl, 'GET', `${M}/publisher/profile`, {
            headers: PUBLISHER,
          });
          const pick = (p: any) => ({
            verified: (p.publisher ?? p).verified,
            verifiedAt: (p.publisher ?? p).verifiedAt,
          });
          expectOneOf(pick(profile.body), answers, pick);
        },
      };
    },
  },
};

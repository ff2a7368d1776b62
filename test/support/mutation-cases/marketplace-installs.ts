import type { MutationTable } from '../concurrent-mutations';
import { successes } from '../concurrent-mutations';
import { unique } from './fixtures';
import {
  activeInstalls,
  approvedItem,
  installed,
  itemRow,
  M,
  type MarketplaceEnv,
  userHeaders,
} from './marketplace-fixtures';

function installCase(type: 'tool' | 'agent'): MutationTable<MarketplaceEnv>[string] {
  return {
    kind: 'action',
    prepare: async (env) => {
      const itemId = await approvedItem(env, type);
      return {
        request: {
          method: 'POST',
          path: `${M}/install/${type}`,
          headers: userHeaders(unique('usr')),
          body: { [`${type}Id`]: itemId },
        },
        alsoAllowed: [409], // a second active installation is a 409, also under concurrency (docs/marketplace.md)
        check: async (answers) => {
          expect(successes(answers)).toHaveLength(1);
          expect(await activeInstalls(env, itemId)).toBe(1);
          expect((await itemRow(env, itemId)).active_installs).toBe(1);
        },
      };
    },
  };
}

function uninstallCase(type: 'tool' | 'agent'): MutationTable<MarketplaceEnv>[string] {
  return {
    kind: 'delete',
    prepare: async (env) => {
      const itemId = await approvedItem(env, type);
      const userId = unique('usr');
      const installationId = await installed(env, type, itemId, userId);
      await installed(env, type, itemId, unique('usr')); // another user's stays
      return {
        request: {
          method: 'DELETE',
          path: `${M}/install/${type}/${installationId}`,
          headers: userHeaders(userId),
        },
        alsoAllowed: [409], // an installation no longer active (docs/marketplace.md "Install")
        check: async () => {
          expect(await activeInstalls(env, itemId)).toBe(1);
          expect((await itemRow(env, itemId)).active_installs).toBe(1); // counted down once
        },
      };
    },
  };
}

/** Installing and uninstalling marketplace tools and agents. */
export const marketplaceInstallCases: MutationTable<MarketplaceEnv> = {
  'POST /api/marketplace/install/tool': installCase('tool'),
  'POST /api/marketplace/install/agent': installCase('agent'),
  'DELETE /api/marketplace/install/tool/{id}': uninstallCase('tool'),
  'DELETE /api/marketplace/install/agent/{id}': uninstallCase('agent'),
};

import type { ConsoleAuth } from '../accounts';
import type { AppContext } from '../common/context';
import type { ApiRoot } from '../http/api-router';
import { CreatedKey, CreateKeyBody, KeyIdParams, KeyList, RevokedKey } from './keys.schemas';
import { createKey, listKeys, revokeKey } from './keys.service';

export function mountKeyRoutes(console: ApiRoot<ConsoleAuth>, ctx: AppContext): void {
  console
    .route({
      method: 'get',
      path: '/keys',
      summary: 'List API keys (masked)',
      success: { description: 'Active keys, newest first; revoked keys are not listed', schema: KeyList },
      handler: async ({ auth }) => ({ keys: await listKeys(ctx.orm.em, auth.account.id) }),
    })
    .route({
      method: 'post',
      path: '/keys',
      summary: 'Create an API key',
      description: 'The full key is in this response only; afterwards only its masked `prefix` is shown.',
      body: CreateKeyBody,
      success: { description: 'The key, with `fullKey` shown once', schema: CreatedKey },
      handler: async ({ auth, body }) => ({
        key: await createKey(ctx.orm.em, auth.account.id, body),
        warning: 'Store this key now: it is shown only once and cannot be recovered.',
      }),
    })
    .route({
      method: 'delete',
      path: '/keys/:id',
      summary: 'Revoke an API key',
      description: 'Takes effect on the very next request, on every API instance.',
      params: KeyIdParams,
      success: { description: 'Revoked', schema: RevokedKey },
      handler: async ({ auth, params }) => {
        // answered once every API instance's key cache has dropped the key (src/auth/key-cache.ts)
        const since = ctx.keyCache.mark();
        const { keyHash, ...revoked } = await revokeKey(ctx.orm.em, auth.account.id, params.id);
        await ctx.keyCache.awaitChange(keyHash, since);
        return { success: true as const, ...revoked };
      },
    });
}

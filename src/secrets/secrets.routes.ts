import type { PlatformAuth } from '../auth/platform-auth';
import type { AppContext } from '../common/context';
import type { ApiRoot } from '../http/api-router';
import { ok, paged } from '../http/envelope';
import {
  DeletedSecret,
  ListSecretsQuery,
  PutSecretBody,
  SecretEnvelope,
  SecretList,
  SecretNameParams,
} from './secrets.schemas';
import { deleteSecret, putSecret, secretLister } from './secrets.service';

export function mountSecretRoutes(platform: ApiRoot<PlatformAuth>, ctx: AppContext): void {
  const listSecrets = secretLister(ctx.orm.em);
  platform
    .route({
      method: 'put',
      path: '/secrets/:name',
      summary: 'Create or replace a secret',
      description:
        'The value is encrypted at rest (AES-256-GCM) and never returned. 201 when created, 200 when replaced.',
      scope: 'secrets:write',
      params: SecretNameParams,
      body: PutSecretBody,
      success: {
        description: 'The secret (name and timestamps), replaced',
        schema: SecretEnvelope,
        also: { 201: 'The secret (name and timestamps), created' },
      },
      handler: async ({ auth, params, body, res }) => {
        const { created, secret } = await putSecret(ctx.orm.em, ctx.encryptor, auth, params.name, body.value);
        res.status(created ? 201 : 200);
        return ok(secret);
      },
    })
    .route({
      method: 'get',
      path: '/secrets',
      summary: 'List secrets (names and timestamps only)',
      scope: 'secrets:read',
      query: ListSecretsQuery,
      success: { description: 'Secrets, by name', schema: SecretList },
      handler: async ({ auth, query }) => {
        const { data, total } = await listSecrets(auth, query);
        return paged(data, { total, limit: query.limit, offset: query.offset });
      },
    })
    .route({
      method: 'delete',
      path: '/secrets/:name',
      summary: 'Delete a secret',
      scope: 'secrets:write',
      params: SecretNameParams,
      success: { description: 'Deleted', schema: DeletedSecret },
      handler: async ({ auth, params }) => ok(await deleteSecret(ctx.orm.em, auth, params.name)),
    });
}

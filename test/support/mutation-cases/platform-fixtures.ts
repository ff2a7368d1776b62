import { OAuthToken } from '../../../src/oauth/oauth.entity';
import type { McpTestServer } from '../mcp-test-server';
import type { Receiver } from '../receiver';
import type { Developer } from '../test-app';
import { type BaseEnv, ok, unique, v2 } from './fixtures';

/** The platform API's fixtures: a webhook receiver, a revocation endpoint, an MCP server, fresh accounts. */
export interface PlatformEnv extends BaseEnv {
  receiver: Receiver;
  revocations: Receiver;
  mcp: McpTestServer;
  /** A new developer on the free plan (for the plan-limit races). */
  freshDeveloper(): Promise<Developer>;
}

export const P = '/api/v2/developers';
export const total = async (env: BaseEnv, path: string) =>
  (await v2(env, 'GET', path)).body.pagination.total as number;

export async function webhook(env: PlatformEnv): Promise<string> {
  const hook = await ok(
    v2(env, 'POST', '/webhooks', {
      name: unique('hook'),
      url: env.receiver.url,
      events: ['session.started'],
    }),
    'create webhook',
  );
  return hook.body.data.id as string;
}

export async function provider(env: PlatformEnv): Promise<string> {
  const base = env.receiver.url.replace('/hooks', '');
  const res = await ok(
    v2(env, 'POST', '/oauth/providers', {
      name: unique('calendar'),
      authorizationUrl: `${base}/authorize`,
      tokenUrl: `${base}/token`,
      revocationUrl: env.revocations.url,
      clientId: 'voice-client',
      clientSecret: 'client-secret-987',
    }),
    'create provider',
  );
  return res.body.data.id as string;
}

/** A connected account's token, stored as the OAuth callback stores one. */
export async function oauthToken(env: PlatformEnv): Promise<string> {
  const providerId = await provider(env);
  const em = env.app.ctx.orm.em.fork();
  const token = em.create(OAuthToken, {
    account: env.dev.publisherId,
    environment: 'live',
    providerId,
    accessTokenCiphertext: '',
    tokenType: 'Bearer',
    scopes: ['calendar.read'],
  });
  // the associated data the tokens service decrypts it with (src/oauth/tokens.service.ts tokenAad)
  const aad = `oauth-access-token:${token.id}:${token.account}:${token.environment}`;
  token.accessTokenCiphertext = env.app.ctx.encryptor.encrypt('access-123', aad);
  await em.persist(token).flush();
  return token.id;
}

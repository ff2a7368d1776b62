import { EntitySchema, OptionalProps } from '@mikro-orm/core';
import { newId } from '../common/ids';
import type { Environment } from '../common/owner';
import { ownedResourceProperties, ownerAccountProperty, timestampProperties } from '../db/entity-properties';
import type { StoredTokenStatus } from './statuses';

/** An OAuth 2.0 provider a developer registered (`oap_…`); the client secret is stored encrypted. */
export class OAuthProvider {
  [OptionalProps]?: 'id' | 'createdAt' | 'updatedAt' | 'revocationUrl' | 'authorizeParams';
  id: string = newId('oap');
  account!: string;
  environment!: Environment;
  name!: string;
  authorizationUrl!: string;
  tokenUrl!: string;
  revocationUrl?: string | null;
  clientId!: string;
  clientSecretCiphertext!: string;
  scopes!: string[];
  authorizeParams?: Record<string, string> | null;
  createdAt: Date = new Date();
  updatedAt: Date = new Date(this.createdAt);
}

export const OAuthProviderSchema = new EntitySchema<OAuthProvider>({
  class: OAuthProvider,
  tableName: 'oauth_providers',
  properties: {
    ...ownedResourceProperties(),
    name: { type: 'string', length: 100 },
    authorizationUrl: { type: 'string', length: 2048 },
    tokenUrl: { type: 'string', length: 2048 },
    revocationUrl: { type: 'string', length: 2048, nullable: true },
    clientId: { type: 'string', length: 512 },
    clientSecretCiphertext: { type: 'text' },
    scopes: { type: 'string[]', columnType: 'text[]' },
    authorizeParams: { type: 'json', nullable: true },
    ...timestampProperties(),
  },
});

/** A pending authorization: the `state` sent to the provider, with its PKCE verifier (encrypted). */
export class OAuthAuthorization {
  [OptionalProps]?: 'createdAt' | 'usedAt';
  state!: string;
  account!: string;
  environment!: Environment;
  providerId!: string;
  codeVerifierCiphertext!: string;
  redirectUri!: string;
  scopes!: string[];
  createdAt: Date = new Date();
  expiresAt!: Date;
  usedAt?: Date | null;
}

export const OAuthAuthorizationSchema = new EntitySchema<OAuthAuthorization>({
  class: OAuthAuthorization,
  tableName: 'oauth_authorizations',
  properties: {
    state: { type: 'string', primary: true, length: 64 },
    account: ownerAccountProperty(),
    environment: { type: 'string', length: 8 },
    providerId: { type: 'string', length: 40 },
    codeVerifierCiphertext: { type: 'text' },
    redirectUri: { type: 'string', length: 2048 },
    scopes: { type: 'string[]', columnType: 'text[]' },
    createdAt: { type: 'Date', columnType: 'timestamptz' },
    expiresAt: { type: 'Date', columnType: 'timestamptz' },
    usedAt: { type: 'Date', columnType: 'timestamptz', nullable: true },
  },
});

/** A connected account's tokens (`oat_…`), encrypted; refreshed automatically when used after expiry. */
export class OAuthToken {
  [OptionalProps]?: 'id' | 'createdAt' | 'updatedAt' | 'status' | 'refreshTokenCiphertext' | 'expiresAt';
  id: string = newId('oat');
  account!: string;
  environment!: Environment;
  providerId!: string;
  accessTokenCiphertext!: string;
  refreshTokenCiphertext?: string | null;
  tokenType!: string;
  scopes!: string[];
  expiresAt?: Date | null;
  status: StoredTokenStatus = 'active';
  createdAt: Date = new Date();
  updatedAt: Date = new Date(this.createdAt);
}

export const OAuthTokenSchema = new EntitySchema<OAuthToken>({
  class: OAuthToken,
  tableName: 'oauth_tokens',
  properties: {
    ...ownedResourceProperties(),
    providerId: { type: 'string', length: 40 },
    accessTokenCiphertext: { type: 'text' },
    refreshTokenCiphertext: { type: 'text', nullable: true },
    tokenType: { type: 'string', length: 40 },
    scopes: { type: 'string[]', columnType: 'text[]' },
    expiresAt: { type: 'Date', columnType: 'timestamptz', nullable: true },
    status: { type: 'string', length: 16 },
    ...timestampProperties(),
  },
});

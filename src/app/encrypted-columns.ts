import type { Environment } from '../common/owner';
import type { EncryptedColumn } from '../crypto/rotation';
import { responseAad } from '../idempotency/idempotency.service';
// src/app/ may import an area's own files, as entities.ts does
import { mcpHeadersAad } from '../mcp/mcp-server.entity';
import { clientSecretAad, tokenAad, verifierAad } from '../oauth';
import { providerAad } from '../providers';
import { secretAad } from '../secrets';
import { phoneNumberCredentialsAad } from '../telephony';
import { webhookPreviousSecretAad, webhookSecretAad, webhookSigningKeyAad } from '../webhooks';

type Row = Readonly<Record<string, string>>;

/** The owner fields every account-owned row's AAD is made of, from its columns. */
const owned = (r: Row) => ({ id: r.id, account: r.account_id, environment: r.environment as Environment });
const OWNED_COLUMNS = ['account_id', 'environment'] as const;

/**
 * Every column the service stores encrypted, with the AAD its owning area binds each value with
 * (computed by that area's own function, so the two cannot drift). `npm run rotate-encryption-key`
 * re-encrypts exactly these; a new encrypted column must be added here (docs/operations.md "Rotating
 * the encryption key"). Session client tokens are sealed with the key too but never stored: they
 * expire within minutes and need no rotation.
 */
export const ENCRYPTED_COLUMNS: readonly EncryptedColumn[] = [
  {
    table: 'secrets',
    key: 'id',
    column: 'ciphertext',
    aadColumns: [...OWNED_COLUMNS, 'name'],
    aad: (r) => secretAad({ ...owned(r), name: r.name }),
  },
  {
    table: 'webhooks',
    key: 'id',
    column: 'secret_ciphertext',
    aadColumns: OWNED_COLUMNS,
    aad: (r) => webhookSecretAad(r.id, r.account_id, r.environment),
  },
  {
    table: 'webhooks',
    key: 'id',
    column: 'previous_secret_ciphertext',
    aadColumns: OWNED_COLUMNS,
    aad: (r) => webhookPreviousSecretAad(r.id, r.account_id, r.environment),
  },
  {
    table: 'webhooks',
    key: 'id',
    column: 'signing_key_ciphertext',
    aadColumns: OWNED_COLUMNS,
    aad: (r) => webhookSigningKeyAad(r.id, r.account_id, r.environment),
  },
  {
    table: 'oauth_providers',
    key: 'id',
    column: 'client_secret_ciphertext',
    aadColumns: OWNED_COLUMNS,
    aad: (r) => clientSecretAad(owned(r)),
  },
  {
    table: 'oauth_tokens',
    key: 'id',
    column: 'access_token_ciphertext',
    aadColumns: OWNED_COLUMNS,
    aad: (r) => tokenAad(owned(r), 'access'),
  },
  {
    table: 'oauth_tokens',
    key: 'id',
    column: 'refresh_token_ciphertext',
    aadColumns: OWNED_COLUMNS,
    aad: (r) => tokenAad(owned(r), 'refresh'),
  },
  // pending authorizations live ten minutes, but one started just before the old key is removed
  // must still complete: rotated like the rest (a few rows)
  {
    table: 'oauth_authorizations',
    key: 'state',
    column: 'code_verifier_ciphertext',
    aadColumns: [],
    aad: (r) => verifierAad(r.state),
  },
  {
    table: 'mcp_servers',
    key: 'id',
    column: 'headers_ciphertext',
    aadColumns: OWNED_COLUMNS,
    aad: (r) => mcpHeadersAad(owned(r)),
  },
  {
    table: 'phone_numbers',
    key: 'id',
    column: 'credentials_ciphertext',
    aadColumns: OWNED_COLUMNS,
    aad: (r) => phoneNumberCredentialsAad(owned(r)),
  },
  // an account's provider keys (docs/providers.md): bound to the provider and its account
  {
    table: 'providers',
    key: 'id',
    column: 'ciphertext',
    aadColumns: ['account_id'],
    aad: (r) => providerAad({ id: r.id, account: r.account_id }),
  },
  // a replayable answer can hold a created webhook's secret; kept 24 h
  {
    table: 'idempotency_keys',
    key: 'id',
    column: 'response_ciphertext',
    aadColumns: [...OWNED_COLUMNS, 'key'],
    aad: (r) =>
      responseAad(r.id, { accountId: r.account_id, environment: r.environment as Environment }, r.key),
  },
];

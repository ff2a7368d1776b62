import { EntitySchema, OptionalProps } from '@mikro-orm/core';
import { newId } from '../common/ids';
import type { Environment } from '../common/owner';
import { ownerAccountProperty } from '../db/entity-properties';

/** An API key record (`key_…`). Only the SHA-256 of the key is kept; the key itself is shown once. */
export class ApiKey {
  [OptionalProps]?: 'id' | 'createdAt';
  id: string = newId('key');
  account!: string;
  name!: string;
  environment!: Environment;
  keyHash!: string;
  prefix!: string;
  scopes!: string[];
  createdAt: Date = new Date();
  lastUsedAt?: Date;
  revokedAt?: Date;
}

export const ApiKeySchema = new EntitySchema<ApiKey>({
  class: ApiKey,
  tableName: 'api_keys',
  indexes: [{ name: 'api_keys_account_index', properties: ['account'] }],
  properties: {
    id: { type: 'string', primary: true, length: 40 },
    account: ownerAccountProperty(),
    name: { type: 'string', length: 100 },
    environment: { type: 'string', length: 8 },
    keyHash: { type: 'string', length: 64, unique: 'api_keys_key_hash_unique' },
    prefix: { type: 'string', length: 20 },
    scopes: { type: 'string[]', columnType: 'text[]' },
    createdAt: { type: 'Date', columnType: 'timestamptz' },
    lastUsedAt: { type: 'Date', columnType: 'timestamptz', nullable: true },
    revokedAt: { type: 'Date', columnType: 'timestamptz', nullable: true },
  },
});

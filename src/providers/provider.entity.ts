import { EntitySchema, OptionalProps } from '@mikro-orm/core';
import { newId } from '../common/ids';
import { ownerAccountProperty, timestampProperties } from '../db/entity-properties';
import type { ProviderApi, ProviderKind } from './presets';

/**
 * A provider an account connected (docs/providers.md): where its API is and the key to it, which is
 * only ever stored encrypted. An account's, not an environment's: a persona serves both.
 */
export class Provider {
  [OptionalProps]?: 'id' | 'preset' | 'createdAt' | 'updatedAt';
  id: string = newId('prov');
  account!: string;
  name!: string;
  kind!: ProviderKind;
  api!: ProviderApi;
  /** The hosted service it was made from (PROVIDER_PRESETS), if any. */
  preset: string | null = null;
  baseUrl!: string;
  /** The API key, encrypted (providerAad). */
  ciphertext!: string;
  createdAt: Date = new Date();
  updatedAt: Date = new Date(this.createdAt);
}

export const ProviderSchema = new EntitySchema<Provider>({
  class: Provider,
  tableName: 'providers',
  uniques: [{ name: 'providers_account_name_unique', properties: ['account', 'name'] }],
  properties: {
    id: { type: 'string', primary: true, length: 40 },
    account: ownerAccountProperty(),
    name: { type: 'string', length: 100 },
    kind: { type: 'string', length: 16 },
    api: { type: 'string', length: 16 },
    preset: { type: 'string', length: 32, nullable: true },
    baseUrl: { type: 'string', length: 2048 },
    ciphertext: { type: 'text' },
    ...timestampProperties(),
  },
});

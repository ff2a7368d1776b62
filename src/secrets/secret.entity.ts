import { EntitySchema, OptionalProps } from '@mikro-orm/core';
import { newId } from '../common/ids';
import type { Environment } from '../common/owner';
import { ownedResourceProperties, timestampProperties } from '../db/entity-properties';

/** A named secret for `{{secrets.NAME}}` templates; the value is only ever stored encrypted. */
export class Secret {
  [OptionalProps]?: 'id' | 'createdAt' | 'updatedAt';
  id: string = newId('sec');
  account!: string;
  environment!: Environment;
  name!: string;
  ciphertext!: string;
  createdAt: Date = new Date();
  updatedAt: Date = new Date(this.createdAt);
}

export const SecretSchema = new EntitySchema<Secret>({
  class: Secret,
  tableName: 'secrets',
  uniques: [{ name: 'secrets_owner_name_unique', properties: ['account', 'environment', 'name'] }],
  properties: {
    ...ownedResourceProperties(),
    name: { type: 'string', length: 64 },
    ciphertext: { type: 'text' },
    ...timestampProperties(),
  },
});

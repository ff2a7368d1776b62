import { EntitySchema, OptionalProps } from '@mikro-orm/core';
import { newId } from '../../common/ids';
import type { Environment } from '../../common/owner';
import { ownedResourceProperties, timestampProperties } from '../../db/entity-properties';

/** The carriers a number can be on (docs/api-contract.md "Phone numbers"). */
export const CARRIERS = ['twilio', 'telnyx'] as const;
export type Carrier = (typeof CARRIERS)[number];

/**
 * A carrier's phone number put on a persona (`pn_…`), in one account and environment. The carrier
 * account's credentials (Twilio's auth token, Telnyx's API key) are stored encrypted and never
 * returned. `personaId` is null once its persona was deleted: the number stays, with the URLs pasted
 * into the carrier's console, until a PUT names another persona.
 */
export class PhoneNumber {
  [OptionalProps]?: 'id' | 'createdAt' | 'updatedAt' | 'name';
  id: string = newId('pn');
  account!: string;
  environment!: Environment;
  /** E.164, as libphonenumber-js formats it (`+14155552671`). */
  number!: string;
  provider!: Carrier;
  personaId!: string | null;
  name: string | null = null;
  /** The carrier credentials as JSON, encrypted (phoneNumberCredentialsAad). */
  credentialsCiphertext!: string;
  createdAt: Date = new Date();
  updatedAt: Date = new Date(this.createdAt);
}

export const PhoneNumberSchema = new EntitySchema<PhoneNumber>({
  class: PhoneNumber,
  tableName: 'phone_numbers',
  uniques: [{ name: 'phone_numbers_owner_number_unique', properties: ['account', 'environment', 'number'] }],
  indexes: [
    { name: 'phone_numbers_owner_index', properties: ['account', 'environment', 'createdAt'] },
    { name: 'phone_numbers_persona_index', properties: ['personaId'] },
  ],
  properties: {
    ...ownedResourceProperties(),
    number: { type: 'string', length: 16 },
    provider: { type: 'string', length: 16 },
    personaId: { type: 'string', length: 40, nullable: true },
    name: { type: 'string', length: 100, nullable: true },
    credentialsCiphertext: { type: 'text' },
    ...timestampProperties(),
  },
});

/** Additional data binding a number's credentials ciphertext to its row and owner. */
export const phoneNumberCredentialsAad = (n: Pick<PhoneNumber, 'id' | 'account' | 'environment'>) =>
  `phone-number-credentials:${n.id}:${n.account}:${n.environment}`;

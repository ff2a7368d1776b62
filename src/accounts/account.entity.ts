import { EntitySchema, OptionalProps } from '@mikro-orm/core';
import { newId } from '../common/ids';
import type { Plan } from '../config/env';

/** A developer account (`pub_…`), created on the first console call from the ID token's issuer and subject. */
export class Account {
  [OptionalProps]?: 'id' | 'createdAt' | 'updatedAt';
  id: string = newId('pub');
  issuer!: string;
  subject!: string;
  email?: string;
  plan!: Plan;
  createdAt: Date = new Date();
  updatedAt: Date = new Date();
}

export const AccountSchema = new EntitySchema<Account>({
  class: Account,
  tableName: 'accounts',
  uniques: [{ name: 'accounts_issuer_subject_unique', properties: ['issuer', 'subject'] }],
  properties: {
    id: { type: 'string', primary: true, length: 40 },
    issuer: { type: 'string', length: 255 },
    subject: { type: 'string', length: 255 },
    email: { type: 'string', length: 320, nullable: true },
    plan: { type: 'string', length: 20 },
    createdAt: { type: 'Date', columnType: 'timestamptz' },
    updatedAt: { type: 'Date', columnType: 'timestamptz', onUpdate: () => new Date() },
  },
});

/**
 * The owning-account column of every account-owned resource: `account_id`, a foreign key to
 * `accounts` (cascade on delete), mapped to the plain `pub_…` id.
 */
export const ownerAccountProperty = () =>
  ({
    kind: 'm:1',
    entity: () => Account,
    mapToPk: true,
    deleteRule: 'cascade',
    fieldName: 'account_id',
  }) as const;

/** The first columns of every account-owned resource: its id, owning account and environment. */
export const ownedResourceProperties = () =>
  ({
    id: { type: 'string', primary: true, length: 40 },
    account: ownerAccountProperty(),
    environment: { type: 'string', length: 8 },
  }) as const;

/** `createdAt`, and `updatedAt` set again on every update. */
export const timestampProperties = () =>
  ({
    createdAt: { type: 'Date', columnType: 'timestamptz' },
    updatedAt: { type: 'Date', columnType: 'timestamptz', onUpdate: () => new Date() },
  }) as const;

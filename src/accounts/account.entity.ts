import { EntitySchema, OptionalProps } from '@mikro-orm/core';
import { newId } from '../common/ids';
import type { Plan } from '../config/env';

/** A developer account (`pub_…`), created on the first console call from the ID token's issuer and subject. */
export class Account {
  [OptionalProps]?: 'id' | 'requirePassingTests' | 'reviewerSince' | 'createdAt' | 'updatedAt';
  id: string = newId('pub');
  issuer!: string;
  subject!: string;
  email?: string;
  plan!: Plan;
  /** A persona submission whose test suite fails is rejected at once (GET/PATCH /settings). */
  requirePassingTests = false;
  /** Since when an operator has marked this console user a reviewer (PUT /api/admin/accounts/:id/reviewer); null: not one. */
  reviewerSince?: Date | null;
  createdAt: Date = new Date();
  updatedAt: Date = new Date(this.createdAt);
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
    requirePassingTests: { type: 'boolean' },
    reviewerSince: { type: 'Date', columnType: 'timestamptz', nullable: true },
    createdAt: { type: 'Date', columnType: 'timestamptz' },
    updatedAt: { type: 'Date', columnType: 'timestamptz', onUpdate: () => new Date() },
  },
});

/**
 * Column sets every account-owned entity shares. The owning account is referenced by entity name, so
 * this platform module knows no area (the Account entity is the accounts area's).
 */

/**
 * The owning-account column of every account-owned resource: `account_id`, a foreign key to
 * `accounts` (cascade on delete), mapped to the plain `pub_…` id.
 */
export const ownerAccountProperty = () =>
  ({
    kind: 'm:1',
    entity: 'Account',
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

import { EntitySchema, OptionalProps } from '@mikro-orm/core';
import { newId } from '../../common/ids';
import type { InstallationStatus, ItemType } from '../items/statuses';

/**
 * A user's installation (`inst_…`) of a marketplace item, with the permissions the user granted (a
 * subset of what the item asks for). At most one `active` installation per user and item (a partial
 * unique index).
 */
export class MarketplaceInstallation {
  [OptionalProps]?: 'id' | 'status' | 'installedAt' | 'uninstalledAt' | 'removedAt';
  id: string = newId('inst');
  userId!: string;
  itemId!: string;
  itemType!: ItemType;
  grantedPermissions!: string[];
  status: InstallationStatus = 'active';
  installedAt: Date = new Date();
  uninstalledAt?: Date | null;
  removedAt?: Date | null;
}

export const MarketplaceInstallationSchema = new EntitySchema<MarketplaceInstallation>({
  class: MarketplaceInstallation,
  tableName: 'marketplace_installations',
  properties: {
    id: { type: 'string', primary: true, length: 40 },
    userId: { type: 'string', length: 128 },
    itemId: { type: 'string', length: 64 },
    itemType: { type: 'string', length: 8 },
    grantedPermissions: { type: 'json', columnType: 'jsonb' },
    status: { type: 'string', length: 16 },
    installedAt: { type: 'Date', columnType: 'timestamptz' },
    uninstalledAt: { type: 'Date', columnType: 'timestamptz', nullable: true },
    removedAt: { type: 'Date', columnType: 'timestamptz', nullable: true },
  },
});

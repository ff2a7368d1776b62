import { EntitySchema, OptionalProps } from '@mikro-orm/core';
import type { RemovalStatus } from '../items/statuses';

/**
 * One removal of an item (`DELETE /publisher/:id`); its id is the id of the Temporal workflow that
 * waits out the grace period (`remove-<item id>-<n>`). Committed with the item's change; the
 * workflow is started after commit (by the API, else by the outbox handler, which looks for rows
 * whose `workflowStartedAt` is still null).
 */
export class MarketplaceRemoval {
  [OptionalProps]?: 'status' | 'workflowStartedAt' | 'restoredAt' | 'completedAt' | 'createdAt';
  id!: string;
  itemId!: string;
  publisherId!: string;
  seq!: number;
  status: RemovalStatus = 'scheduled';
  requestedAt!: Date;
  /** When the grace period ends: installations are then marked removed. */
  removesAt!: Date;
  workflowStartedAt?: Date | null;
  restoredAt?: Date | null;
  completedAt?: Date | null;
  createdAt: Date = new Date();
}

export const MarketplaceRemovalSchema = new EntitySchema<MarketplaceRemoval>({
  class: MarketplaceRemoval,
  tableName: 'marketplace_removals',
  properties: {
    id: { type: 'string', primary: true, length: 100 },
    itemId: { type: 'string', length: 64 },
    publisherId: { type: 'string', length: 128 },
    seq: { type: 'integer' },
    status: { type: 'string', length: 16 },
    requestedAt: { type: 'Date', columnType: 'timestamptz' },
    removesAt: { type: 'Date', columnType: 'timestamptz' },
    workflowStartedAt: { type: 'Date', columnType: 'timestamptz', nullable: true },
    restoredAt: { type: 'Date', columnType: 'timestamptz', nullable: true },
    completedAt: { type: 'Date', columnType: 'timestamptz', nullable: true },
    createdAt: { type: 'Date', columnType: 'timestamptz' },
  },
});

/** The workflow id (and removal id) of an item's n-th removal. */
export const removalId = (itemId: string, seq: number) => `remove-${itemId}-${seq}`;

import { EntitySchema, OptionalProps } from '@mikro-orm/core';
import { newId } from '../common/ids';
import type { Environment } from '../common/owner';
import { ownedResourceProperties, timestampProperties } from '../db/entity-properties';
import type { RecoveryStatus } from './statuses';

/**
 * A recovery (`wrc_…`, also its Temporal workflow id): re-sends each event of [since, until] the
 * webhook subscribes to and did not get, once. `total` counts the deliveries it queued so far; the
 * cursor is the last event queued (the workflow pages on from it). `workflowStartedAt` is null until
 * the recovery's workflow started: unstarted rows are the dispatcher's to start.
 */
export class WebhookRecovery {
  [OptionalProps]?:
    | 'id'
    | 'status'
    | 'total'
    | 'cursorCreatedAt'
    | 'cursorEventId'
    | 'error'
    | 'workflowStartedAt'
    | 'completedAt'
    | 'createdAt'
    | 'updatedAt';
  id: string = newId('wrc');
  account!: string;
  environment!: Environment;
  webhookId!: string;
  status: RecoveryStatus = 'running';
  since!: Date;
  until!: Date;
  total = 0;
  cursorCreatedAt?: Date | null;
  cursorEventId?: string | null;
  error?: string | null;
  workflowStartedAt?: Date | null;
  completedAt?: Date | null;
  createdAt: Date = new Date();
  updatedAt: Date = new Date(this.createdAt);
}

export const WebhookRecoverySchema = new EntitySchema<WebhookRecovery>({
  class: WebhookRecovery,
  tableName: 'webhook_recoveries',
  properties: {
    ...ownedResourceProperties(),
    webhookId: { type: 'string', length: 40 },
    status: { type: 'string', length: 16 },
    since: { type: 'Date', columnType: 'timestamptz' },
    until: { type: 'Date', columnType: 'timestamptz' },
    total: { type: 'integer', default: 0 },
    cursorCreatedAt: { type: 'Date', columnType: 'timestamptz', nullable: true },
    cursorEventId: { type: 'string', length: 40, nullable: true },
    error: { type: 'text', nullable: true },
    workflowStartedAt: { type: 'Date', columnType: 'timestamptz', nullable: true },
    completedAt: { type: 'Date', columnType: 'timestamptz', nullable: true },
    ...timestampProperties(),
  },
});

import { EntitySchema, OptionalProps } from '@mikro-orm/core';
import type { Environment } from '../common/owner';
import { ownedResourceProperties } from '../db/entity-properties';

import type { DeliveryStatus } from './statuses';

/**
 * One event sent to one webhook (`del_…`, also the id of its Temporal workflow). `workflowStartedAt`
 * is null until the dispatcher has started the workflow: unstarted rows are its second outbox.
 */
export class Delivery {
  [OptionalProps]?:
    | 'status'
    | 'attempts'
    | 'createdAt'
    | 'test'
    | 'statusCode'
    | 'latencyMs'
    | 'deliveredAt'
    | 'error'
    | 'lastAttemptAt'
    | 'nextAttemptAt'
    | 'replayOf'
    | 'recoveryId'
    | 'workflowStartedAt';
  id!: string;
  account!: string;
  environment!: Environment;
  webhookId!: string;
  eventId!: string;
  eventType!: string;
  status: DeliveryStatus = 'pending';
  attempts = 0;
  statusCode?: number | null;
  latencyMs?: number | null;
  deliveredAt?: Date | null;
  error?: string | null;
  lastAttemptAt?: Date | null;
  nextAttemptAt?: Date | null;
  /** Sent by POST /webhooks/:id/test: one attempt, never changes the webhook's status. */
  test = false;
  /** The delivery this one replays (POST …/logs/:deliveryId/retry). */
  replayOf?: string | null;
  /** The recovery (`wrc_…`) that re-sent this event (POST /webhooks/:id/recover). */
  recoveryId?: string | null;
  workflowStartedAt?: Date | null;
  createdAt: Date = new Date();
}

export const DeliverySchema = new EntitySchema<Delivery>({
  class: Delivery,
  tableName: 'deliveries',
  properties: {
    ...ownedResourceProperties(),
    webhookId: { type: 'string', length: 40 },
    eventId: { type: 'string', length: 40 },
    eventType: { type: 'string', length: 64 },
    status: { type: 'string', length: 16 },
    attempts: { type: 'integer' },
    statusCode: { type: 'integer', nullable: true },
    latencyMs: { type: 'integer', nullable: true },
    deliveredAt: { type: 'Date', columnType: 'timestamptz', nullable: true },
    error: { type: 'text', nullable: true },
    lastAttemptAt: { type: 'Date', columnType: 'timestamptz', nullable: true },
    nextAttemptAt: { type: 'Date', columnType: 'timestamptz', nullable: true },
    test: { type: 'boolean' },
    replayOf: { type: 'string', length: 40, nullable: true },
    recoveryId: { type: 'string', length: 40, nullable: true },
    workflowStartedAt: { type: 'Date', columnType: 'timestamptz', nullable: true },
    createdAt: { type: 'Date', columnType: 'timestamptz' },
  },
});

/** Every attempt of a delivery, as sent and as answered (response body cut to a few KiB). */
export class DeliveryAttempt {
  deliveryId!: string;
  attempt!: number;
  attemptedAt!: Date;
  success!: boolean;
  statusCode?: number | null;
  latencyMs!: number;
  error?: string | null;
  responseBody?: string | null;
}

export const DeliveryAttemptSchema = new EntitySchema<DeliveryAttempt>({
  class: DeliveryAttempt,
  tableName: 'delivery_attempts',
  properties: {
    deliveryId: { type: 'string', primary: true, length: 40 },
    attempt: { type: 'integer', primary: true },
    attemptedAt: { type: 'Date', columnType: 'timestamptz' },
    success: { type: 'boolean' },
    statusCode: { type: 'integer', nullable: true },
    latencyMs: { type: 'integer' },
    error: { type: 'text', nullable: true },
    responseBody: { type: 'text', nullable: true },
  },
});

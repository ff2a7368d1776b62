import { EntitySchema, OptionalProps } from '@mikro-orm/core';
import { newId } from '../../common/ids';
import type { Environment } from '../../common/owner';
import { ownedResourceProperties, timestampProperties } from '../../db/entity-properties';
import type { CallDirection, CallStatus } from './call-statuses';

/** One step of a call's life, as the carrier reported it (or the platform decided it). */
export interface CallTimelineEntry {
  status: CallStatus;
  at: string;
}

/**
 * A phone call (`call_…`), inbound or outbound, on one of the account's numbers; run by one
 * Temporal workflow (workflow id = the call id, workflows/phone-call.ts). `placingStartedAt` is set
 * before the carrier is asked to place an outbound call, `carrierCallId` once it answered: a retry
 * that finds the first without the second never asks again (docs/telephony.md "Calls").
 */
export class Call {
  [OptionalProps]?:
    | 'id'
    | 'sessionId'
    | 'timeline'
    | 'carrierCallId'
    | 'endedReason'
    | 'durationS'
    | 'variables'
    | 'answeredAt'
    | 'endedAt'
    | 'placingStartedAt'
    | 'streamTokenUsedAt'
    | 'streamTokensTaken'
    | 'workflowStartedAt'
    | 'recordedAt'
    | 'createdAt'
    | 'updatedAt';
  id: string = newId('call');
  account!: string;
  environment!: Environment;
  phoneNumberId!: string;
  personaId!: string;
  sessionId: string | null = null;
  direction!: CallDirection;
  from!: string;
  to!: string;
  status!: CallStatus;
  timeline: CallTimelineEntry[] = [];
  carrierCallId: string | null = null;
  endedReason: string | null = null;
  durationS: number | null = null;
  variables: Record<string, string> = {};
  maxDurationS!: number;
  answeredAt: Date | null = null;
  endedAt: Date | null = null;
  placingStartedAt: Date | null = null;
  streamTokenUsedAt: Date | null = null;
  /** How many stream tokens the call has taken: its first stream's, then one per return from a warm transfer. */
  streamTokensTaken = 0;
  workflowStartedAt: Date | null = null;
  /** When the call's recording began (its first chunk was kept); null when it has none. */
  recordedAt: Date | null = null;
  createdAt: Date = new Date();
  updatedAt: Date = new Date(this.createdAt);
}

export const CallSchema = new EntitySchema<Call>({
  class: Call,
  tableName: 'calls',
  indexes: [
    { name: 'calls_owner_index', properties: ['account', 'environment', 'createdAt'] },
    { name: 'calls_carrier_call_index', properties: ['phoneNumberId', 'carrierCallId'] },
  ],
  properties: {
    ...ownedResourceProperties(),
    phoneNumberId: { type: 'string', length: 40 },
    personaId: { type: 'string', length: 40 },
    sessionId: { type: 'string', length: 40, nullable: true },
    direction: { type: 'string', length: 8 },
    from: { type: 'string', length: 16, fieldName: 'from' },
    to: { type: 'string', length: 16, fieldName: 'to' },
    status: { type: 'string', length: 16 },
    timeline: { type: 'json', columnType: 'jsonb' },
    carrierCallId: { type: 'string', length: 64, nullable: true },
    endedReason: { type: 'text', nullable: true },
    durationS: { type: 'integer', nullable: true },
    variables: { type: 'json', columnType: 'jsonb' },
    maxDurationS: { type: 'integer' },
    answeredAt: { type: 'Date', columnType: 'timestamptz', nullable: true },
    endedAt: { type: 'Date', columnType: 'timestamptz', nullable: true },
    placingStartedAt: { type: 'Date', columnType: 'timestamptz', nullable: true },
    streamTokenUsedAt: { type: 'Date', columnType: 'timestamptz', nullable: true },
    streamTokensTaken: { type: 'integer', default: 0 },
    workflowStartedAt: { type: 'Date', columnType: 'timestamptz', nullable: true },
    recordedAt: { type: 'Date', columnType: 'timestamptz', nullable: true },
    ...timestampProperties(),
  },
});

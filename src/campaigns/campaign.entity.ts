import { EntitySchema, OptionalProps } from '@mikro-orm/core';
import { newId } from '../common/ids';
import type { Environment } from '../common/owner';
import { ownedResourceProperties, timestampProperties } from '../db/entity-properties';
import type { RetryPlan } from './call-outcomes';
import type { CallingHours } from './calling-hours';
import type { CallOutcome, CampaignStatus, ContactStatus } from './statuses';

/**
 * An outbound campaign (`cmp_…`): its plan, and its status as its workflow (workflow id = the
 * campaign id, workflows/campaign.ts) keeps it. Its contacts are rows of their own
 * (`campaign_contacts`), which the workflow pages through: it never holds them.
 */
export class Campaign {
  [OptionalProps]?: 'id' | 'status' | 'endedAt' | 'workflowStartedAt' | 'createdAt' | 'updatedAt';
  id: string = newId('cmp');
  account!: string;
  environment!: Environment;
  name!: string;
  phoneNumberId!: string;
  personaId!: string;
  /** The number's E.164 number when the campaign was created: its calls' `from`. */
  fromNumber!: string;
  concurrency!: number;
  callingHours!: CallingHours;
  retry!: RetryPlan;
  contactCount!: number;
  /** CAMPAIGN_MINUTE_MS when it was created: its clock keeps that pace for its whole life. */
  minuteMs!: number;
  status: CampaignStatus = 'running';
  endedAt: Date | null = null;
  workflowStartedAt: Date | null = null;
  createdAt: Date = new Date();
  updatedAt: Date = new Date(this.createdAt);
}

export const CampaignSchema = new EntitySchema<Campaign>({
  class: Campaign,
  tableName: 'campaigns',
  indexes: [{ name: 'campaigns_owner_index', properties: ['account', 'environment', 'createdAt'] }],
  properties: {
    ...ownedResourceProperties(),
    name: { type: 'string', length: 200 },
    phoneNumberId: { type: 'string', length: 40 },
    personaId: { type: 'string', length: 40 },
    fromNumber: { type: 'string', length: 16 },
    concurrency: { type: 'integer' },
    callingHours: { type: 'json', columnType: 'jsonb' },
    retry: { type: 'json', columnType: 'jsonb' },
    contactCount: { type: 'integer' },
    minuteMs: { type: 'integer' },
    status: { type: 'string', length: 16 },
    endedAt: { type: 'Date', columnType: 'timestamptz', nullable: true },
    workflowStartedAt: { type: 'Date', columnType: 'timestamptz', nullable: true },
    ...timestampProperties(),
  },
});

/** One call of an attempt, on a contact's row. */
export interface CampaignAttemptEntry {
  attempt: number;
  callId: string;
  outcome: CallOutcome | null;
  at: string;
}

/**
 * A contact of a campaign, by its place in the request (`index`): its attempts so far (each with
 * its call) and, once no attempt follows, its outcome. `claimStep` names the workflow step that
 * claimed its current attempt, so that step run again answers the same calls.
 */
export class CampaignContact {
  campaignId!: string;
  index!: number;
  to!: string;
  variables: Record<string, string> = {};
  status: ContactStatus = 'pending';
  attemptCount = 0;
  attempts: CampaignAttemptEntry[] = [];
  outcome: CallOutcome | null = null;
  nextAttemptAt: Date | null = null;
  claimStep: string | null = null;
  updatedAt: Date = new Date();
}

export const CampaignContactSchema = new EntitySchema<CampaignContact>({
  class: CampaignContact,
  tableName: 'campaign_contacts',
  properties: {
    campaignId: { type: 'string', length: 40, primary: true },
    index: { type: 'integer', primary: true },
    to: { type: 'string', length: 16, fieldName: 'to' },
    variables: { type: 'json', columnType: 'jsonb' },
    status: { type: 'string', length: 16 },
    attemptCount: { type: 'integer' },
    attempts: { type: 'json', columnType: 'jsonb' },
    outcome: { type: 'string', length: 16, nullable: true },
    nextAttemptAt: { type: 'Date', columnType: 'timestamptz', nullable: true },
    claimStep: { type: 'string', length: 80, nullable: true },
    updatedAt: { type: 'Date', columnType: 'timestamptz' },
  },
});

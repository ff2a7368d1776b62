import { type Client, WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import type { campaignWorkflow } from '../../workflows/campaign';
import type { Config } from '../config/env';
import { AccountIdKey, PersonaIdKey, PhoneNumberIdKey } from '../temporal/search-attributes';
import type { CallingHours } from './calling-hours';
import { CAMPAIGN_CALL_MAX_DURATION_S } from './campaign-steps';

export interface CampaignToStart {
  id: string;
  accountId: string;
  phoneNumberId: string;
  personaId: string;
  concurrency: number;
  callingHours: CallingHours;
  minuteMs: number;
  createdAt: Date;
}

/**
 * Starts a campaign's workflow (the background pool) with the campaign id as workflow id, so a
 * repeated start (the dispatcher after the API crashed) is harmless. Its calls run on the
 * conversations pool, as its children. Search attributes let operators filter the Web UI by
 * account, persona and number.
 */
export async function startCampaignWorkflow(temporal: Client, config: Config, c: CampaignToStart) {
  try {
    return await temporal.workflow.start<typeof campaignWorkflow>('campaignWorkflow', {
      workflowId: c.id,
      taskQueue: config.temporal.taskQueues.background,
      args: [
        {
          campaignId: c.id,
          concurrency: c.concurrency,
          callingHours: c.callingHours,
          clock: { minuteMs: c.minuteMs, anchorMs: c.createdAt.getTime() },
          eventsPerRun: config.telephony.campaignEventsPerRun,
          calls: {
            accountId: c.accountId,
            phoneNumberId: c.phoneNumberId,
            personaId: c.personaId,
            taskQueue: config.temporal.taskQueues.conversations,
            maxDurationS: CAMPAIGN_CALL_MAX_DURATION_S,
            unconfirmedWaitS: config.telephony.unconfirmedCallWaitS,
            carrierTimeoutMs: config.telephony.carrierTimeoutMs,
          },
        },
      ],
      typedSearchAttributes: [
        { key: AccountIdKey, value: c.accountId },
        { key: PersonaIdKey, value: c.personaId },
        { key: PhoneNumberIdKey, value: c.phoneNumberId },
      ],
    });
  } catch (error) {
    if (error instanceof WorkflowExecutionAlreadyStartedError) {
      return temporal.workflow.getHandle<typeof campaignWorkflow>(c.id);
    }
    throw error;
  }
}

import { type Client, WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import type { phoneCallWorkflow } from '../../../workflows/phone-call';
import type { Config } from '../../config/env';
import {
  AccountIdKey,
  CallDirectionKey,
  CallStatusKey,
  PersonaIdKey,
  PhoneNumberIdKey,
} from '../../temporal/search-attributes';
import type { CallDirection, CallStatus } from './call-statuses';

export interface CallToStart {
  id: string;
  accountId: string;
  phoneNumberId: string;
  personaId: string;
  direction: CallDirection;
  status: CallStatus;
  maxDurationS: number;
}

/**
 * Starts a call's workflow with the call id as workflow id, so a repeated start (the dispatcher
 * after the API crashed) is harmless. Search attributes let operators filter the Web UI by account,
 * number, persona, direction and status.
 */
export async function startCallWorkflow(temporal: Client, config: Config, c: CallToStart) {
  try {
    return await temporal.workflow.start<typeof phoneCallWorkflow>('phoneCallWorkflow', {
      workflowId: c.id,
      taskQueue: config.temporal.taskQueues.conversations,
      args: [
        {
          callId: c.id,
          direction: c.direction,
          status: c.status,
          maxDurationS: c.maxDurationS,
          unconfirmedWaitS: config.telephony.unconfirmedCallWaitS,
          carrierTimeoutMs: config.telephony.carrierTimeoutMs,
        },
      ],
      typedSearchAttributes: [
        { key: AccountIdKey, value: c.accountId },
        { key: PhoneNumberIdKey, value: c.phoneNumberId },
        { key: PersonaIdKey, value: c.personaId },
        { key: CallDirectionKey, value: c.direction },
        { key: CallStatusKey, value: c.status },
      ],
    });
  } catch (error) {
    if (error instanceof WorkflowExecutionAlreadyStartedError) {
      return temporal.workflow.getHandle<typeof phoneCallWorkflow>(c.id);
    }
    throw error;
  }
}

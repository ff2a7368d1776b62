import { OUTBOX_BATCH, type OutboxDeps, type OutboxHandler } from '../events/outbox';
import type { CallingHours } from './calling-hours';
import { startCampaignWorkflow } from './campaign-workflows';

/** A campaign the API has not started after this long is started here (the API crashed or Temporal was down). */
const CAMPAIGN_START_GRACE_SECONDS = 5;

interface UnstartedCampaign {
  id: string;
  account_id: string;
  phone_number_id: string;
  persona_id: string;
  concurrency: number;
  calling_hours: CallingHours;
  minute_ms: number;
  created_at: Date;
}

/** Campaigns' side of the outbox: start the workflow of a committed campaign whose start did not happen. */
export function createCampaignOutboxHandler({ temporal, config }: OutboxDeps): OutboxHandler {
  return {
    name: 'campaigns',
    startPending(startClaimed) {
      return startClaimed<UnstartedCampaign>({
        table: 'campaigns',
        claimSql: `select id, account_id, phone_number_id, persona_id, concurrency, calling_hours, minute_ms, created_at
           from campaigns where workflow_started_at is null and ended_at is null
             and created_at < now() - make_interval(secs => ?)
           order by created_at limit ? for update skip locked`,
        bindings: [CAMPAIGN_START_GRACE_SECONDS, OUTBOX_BATCH],
        start: (r) =>
          startCampaignWorkflow(temporal, config, {
            id: r.id,
            accountId: r.account_id,
            phoneNumberId: r.phone_number_id,
            personaId: r.persona_id,
            concurrency: r.concurrency,
            callingHours: r.calling_hours,
            minuteMs: r.minute_ms,
            createdAt: new Date(r.created_at),
          }),
      });
    },
  };
}

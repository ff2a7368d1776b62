import { OUTBOX_BATCH, type OutboxDeps, type OutboxHandler } from '../../events/outbox';
import type { CallDirection, CallStatus } from './call-statuses';
import { startCallWorkflow } from './call-workflows';

/** A call the API has not started after this long is started here (the API crashed or Temporal was down). */
const CALL_START_GRACE_SECONDS = 5;

interface UnstartedCall {
  id: string;
  account_id: string;
  phone_number_id: string;
  persona_id: string;
  direction: CallDirection;
  status: CallStatus;
  max_duration_s: number;
}

/** Calls' side of the outbox: start the workflow of a committed call whose start did not happen. */
export function createCallOutboxHandler({ temporal, config }: OutboxDeps): OutboxHandler {
  return {
    name: 'calls',
    startPending(startClaimed) {
      return startClaimed<UnstartedCall>({
        table: 'calls',
        claimSql: `select id, account_id, phone_number_id, persona_id, direction, status, max_duration_s from calls
           where workflow_started_at is null and ended_at is null
             and created_at < now() - make_interval(secs => ?)
           order by created_at limit ? for update skip locked`,
        bindings: [CALL_START_GRACE_SECONDS, OUTBOX_BATCH],
        start: (r) =>
          startCallWorkflow(temporal, config, {
            id: r.id,
            accountId: r.account_id,
            phoneNumberId: r.phone_number_id,
            personaId: r.persona_id,
            direction: r.direction,
            status: r.status,
            maxDurationS: r.max_duration_s,
          }),
      });
    },
  };
}

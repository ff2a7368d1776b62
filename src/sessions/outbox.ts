import { OUTBOX_BATCH, type OutboxDeps, type OutboxHandler } from '../events/outbox';
import { startSessionWorkflow } from './session-workflows';

/** A session the API has not started after this long is started here (the API crashed or Temporal was down). */
const SESSION_START_GRACE_SECONDS = 5;

interface UnstartedSession {
  id: string;
  account_id: string;
  persona_id: string;
  user_id: string;
}

/** Sessions' side of the outbox: start the workflow of a committed session whose start did not happen. */
export function createSessionOutboxHandler({ temporal, config }: OutboxDeps): OutboxHandler {
  return {
    name: 'sessions',
    startPending(startClaimed) {
      return startClaimed<UnstartedSession>({
        table: 'sessions',
        claimSql: `select id, account_id, persona_id, user_id from sessions
           where workflow_started_at is null and status = 'active'
             and created_at < now() - make_interval(secs => ?)
           order by created_at limit ? for update skip locked`,
        bindings: [SESSION_START_GRACE_SECONDS, OUTBOX_BATCH],
        start: (r) =>
          startSessionWorkflow(temporal, config, {
            id: r.id,
            accountId: r.account_id,
            personaId: r.persona_id,
            userId: r.user_id,
          }),
      });
    },
  };
}

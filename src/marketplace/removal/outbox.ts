import { OUTBOX_BATCH, type OutboxDeps, type OutboxHandler } from '../../events/outbox';
import { startRemovalWorkflow } from './removal-workflows';

/** A removal the API has not started after this long is started here (the API crashed or Temporal was down). */
const REMOVAL_START_GRACE_SECONDS = 5;

interface UnstartedRemoval {
  id: string;
  item_id: string;
  publisher_id: string;
  removes_at: string | Date;
}

/**
 * Marketplace removals' side of the outbox: DELETE commits the removal row and the API starts its
 * workflow after commit; if it could not (Temporal down, a crash in between), this starts it.
 */
export function createMarketplaceRemovalOutboxHandler({ temporal, config }: OutboxDeps): OutboxHandler {
  return {
    name: 'marketplace-removals',

    startPending(startClaimed) {
      return startClaimed<UnstartedRemoval>({
        table: 'marketplace_removals',
        claimSql: `select id, item_id, publisher_id, removes_at from marketplace_removals
           where workflow_started_at is null and status = 'scheduled'
             and created_at < now() - make_interval(secs => ?)
           order by created_at limit ? for update skip locked`,
        bindings: [REMOVAL_START_GRACE_SECONDS, OUTBOX_BATCH],
        start: (r) =>
          startRemovalWorkflow(temporal, config, {
            id: r.id,
            itemId: r.item_id,
            publisherId: r.publisher_id,
            removesAt: new Date(r.removes_at),
          }),
      });
    },
  };
}

import { OUTBOX_BATCH, type OutboxDeps, type OutboxHandler } from '../events/outbox';
import { startReviewWorkflow } from './review-workflows';
import type { ReviewKind } from './statuses';

/** A review the API has not started after this long is started here (the API crashed or Temporal was down). */
const REVIEW_START_GRACE_SECONDS = 5;

interface UnstartedReview {
  id: string;
  kind: ReviewKind;
  subject_id: string;
  account_id: string;
  due_by: string | Date;
}

/**
 * Reviews' side of the outbox: a submission commits its review row, and the API starts the review
 * workflow after commit; if it could not (Temporal down, a crash in between), this starts it.
 */
export function createReviewOutboxHandler({ temporal, config }: OutboxDeps): OutboxHandler {
  return {
    name: 'reviews',

    startPending(startClaimed) {
      return startClaimed<UnstartedReview>({
        table: 'reviews',
        claimSql: `select id, kind, subject_id, account_id, due_by from reviews
           where workflow_started_at is null and status = 'pending'
             and created_at < now() - make_interval(secs => ?)
           order by created_at limit ? for update skip locked`,
        bindings: [REVIEW_START_GRACE_SECONDS, OUTBOX_BATCH],
        start: (r) =>
          startReviewWorkflow(temporal, config, {
            id: r.id,
            kind: r.kind,
            subjectId: r.subject_id,
            accountId: r.account_id,
            dueBy: new Date(r.due_by),
          }),
      });
    },
  };
}

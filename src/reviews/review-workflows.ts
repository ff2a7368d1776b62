import type { EntityManager } from '@mikro-orm/postgresql';
import { type Client, WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError } from '@temporalio/client';
import type { SearchAttributePair } from '@temporalio/common';
import type { AppContext } from '../common/context';
import type { Config } from '../config/env';
import { AccountIdKey, PersonaIdKey, ReviewKindKey, ReviewOverdueKey } from '../temporal/search-attributes';
import { Review } from './review.entity';
import type { ReviewWorkflow, ReviewWorkflowInput } from './review-types';
import type { ReviewKind } from './statuses';

/** The Temporal workflow type that runs each kind of review. */
const WORKFLOW_TYPES: Record<ReviewKind, string> = {
  persona: 'reviewPersonaWorkflow',
  marketplace_item: 'reviewMarketplaceItemWorkflow',
};

export interface ReviewToStart {
  id: string;
  kind: ReviewKind;
  subjectId: string;
  accountId: string;
  dueBy: Date;
}

/**
 * Starts a review's workflow (workflow id = review id, so a repeated start, by the API and by the
 * outbox handler, is harmless). Search attributes let operators filter the Web UI by account,
 * persona, kind, and overdue reviews (`ReviewOverdue = true`, set by the workflow's timer).
 */
export async function startReviewWorkflow(temporal: Client, config: Config, r: ReviewToStart) {
  const input: ReviewWorkflowInput = {
    reviewId: r.id,
    kind: r.kind,
    subjectId: r.subjectId,
    dueBy: r.dueBy.toISOString(),
  };
  const searchAttributes: SearchAttributePair[] = [
    { key: AccountIdKey, value: r.accountId },
    { key: ReviewKindKey, value: r.kind },
    { key: ReviewOverdueKey, value: false },
  ];
  if (r.kind === 'persona') searchAttributes.push({ key: PersonaIdKey, value: r.subjectId });
  try {
    return await temporal.workflow.start<ReviewWorkflow>(WORKFLOW_TYPES[r.kind], {
      workflowId: r.id,
      taskQueue: config.temporal.taskQueues.background,
      args: [input],
      typedSearchAttributes: searchAttributes,
      memo: { dueBy: input.dueBy },
    });
  } catch (error) {
    if (error instanceof WorkflowExecutionAlreadyStartedError) return temporal.workflow.getHandle(r.id);
    throw error;
  }
}

/** Ends a withdrawn review's workflow; one that already closed (not found) is fine. */
export async function cancelReviewWorkflow(temporal: Client, id: string): Promise<void> {
  try {
    await temporal.workflow.getHandle(id).cancel();
  } catch (error) {
    if (!(error instanceof WorkflowNotFoundError)) throw error;
  }
}

/** Starts a committed review's workflow; if Temporal cannot be reached the outbox handler starts it later. */
export async function startCommittedReview(
  ctx: Pick<AppContext, 'config' | 'logger' | 'temporal'>,
  em: EntityManager,
  review: Review,
): Promise<void> {
  try {
    await startReviewWorkflow(ctx.temporal, ctx.config, review);
    await em.nativeUpdate(Review, { id: review.id }, { workflowStartedAt: new Date() });
  } catch (error) {
    ctx.logger.warn(
      { err: error, reviewId: review.id },
      'review workflow not started yet; the dispatcher will',
    );
  }
}

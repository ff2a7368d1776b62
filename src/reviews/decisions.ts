import type { EntityManager } from '@mikro-orm/postgresql';
import { LockMode } from '@mikro-orm/postgresql';
import { Review } from './review.entity';
import type { ReviewOutcome } from './review-types';
import type { ReviewDecision, ReviewKind } from './statuses';

/**
 * How a decision changes the reviewed thing (a persona is published or rejected, a marketplace
 * version approved), inside the transaction that records the decision. Each area registers one.
 */
export type ReviewSubjects = Record<
  ReviewKind,
  (tem: EntityManager, review: Review, decision: ReviewDecision, at: Date) => Promise<void>
>;

const outcomeOf = (r: Review): ReviewOutcome => ({
  reviewId: r.id,
  status: r.status,
  notes: r.notes ?? null,
  decidedAt: r.decidedAt ? r.decidedAt.toISOString() : null,
});

/**
 * Records an operator's decision and applies it to the subject, in one transaction. Idempotent: a
 * retried activity finds the review decided and answers its outcome; a withdrawn review is left
 * as it is (its outcome says `withdrawn`).
 */
export async function applyReviewDecision(
  em: EntityManager,
  subjects: ReviewSubjects,
  input: { reviewId: string; decision: ReviewDecision; notes?: string },
): Promise<ReviewOutcome> {
  return em.transactional(async (tem) => {
    const review = await tem.findOne(
      Review,
      { id: input.reviewId },
      { lockMode: LockMode.PESSIMISTIC_WRITE },
    );
    if (!review) return { reviewId: input.reviewId, status: 'withdrawn', notes: null, decidedAt: null };
    if (review.status !== 'pending') return outcomeOf(review);
    const at = new Date();
    tem.assign(review, {
      status: input.decision === 'approve' ? 'approved' : 'rejected',
      notes: input.notes ?? null,
      decidedAt: at,
    });
    await subjects[review.kind](tem, review, input.decision, at);
    return outcomeOf(review);
  });
}

/** The review's due time passed with no decision: mark it overdue. Answers whether it is still pending. */
export async function markReviewOverdue(em: EntityManager, reviewId: string): Promise<{ pending: boolean }> {
  const marked = await em.nativeUpdate(Review, { id: reviewId, status: 'pending' }, { overdue: true });
  return { pending: marked > 0 };
}

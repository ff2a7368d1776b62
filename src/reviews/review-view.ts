import { z } from 'zod';
import { timestamp } from '../http/envelope';
import type { Review } from './review.entity';
import { ReviewTestsSchema } from './review-tests.schemas';
import { REVIEW_KINDS, REVIEW_STATUSES } from './statuses';

/** A review as the operators' list shows it. */
export const PendingReviewSchema = z
  .object({
    kind: z.enum(REVIEW_KINDS),
    id: z.string().meta({ description: 'The persona or marketplace item id' }),
    name: z.string(),
    accountId: z.string(),
    submittedAt: timestamp(),
    dueBy: timestamp().meta({ description: 'Submission + 5 business days (Monday–Friday, UTC)' }),
    overdue: z.boolean().meta({ description: "Set by the review workflow's durable timer at `dueBy`" }),
    workflowId: z.string().meta({ description: 'The review workflow, in the Temporal Web UI' }),
    tests: ReviewTestsSchema.nullable().meta({
      description:
        "A persona's test suite as the review ran it (`running` until it ends); null for a marketplace item or a review from before the gate",
    }),
  })
  .meta({ id: 'PendingReview' });

/** One review, pending or decided: the list's fields and the outcome. */
export const ReviewViewSchema = PendingReviewSchema.extend({
  submission: z
    .number()
    .int()
    .meta({ description: "The persona's n-th submission (1 for a marketplace item)" }),
  status: z.enum(REVIEW_STATUSES),
  notes: z.string().nullable().meta({ description: "The operator's notes, once decided" }),
  decidedAt: timestamp().nullable(),
}).meta({ id: 'OperatorReview' });

export const pendingReviewView = (r: Review): z.input<typeof PendingReviewSchema> => ({
  kind: r.kind,
  id: r.subjectId,
  name: r.subjectName,
  accountId: r.accountId,
  submittedAt: r.submittedAt.toISOString(),
  dueBy: r.dueBy.toISOString(),
  overdue: r.overdue,
  workflowId: r.id,
  tests: r.tests ?? null,
});

export const reviewView = (r: Review): z.input<typeof ReviewViewSchema> => ({
  ...pendingReviewView(r),
  submission: r.submission,
  status: r.status,
  notes: r.notes ?? null,
  decidedAt: r.decidedAt ? r.decidedAt.toISOString() : null,
});

import { z } from 'zod';
import type { AdminAuth } from '../auth/admin-auth';
import type { AppContext } from '../common/context';
import type { ApiRoot } from '../http/api-router';
import { timestamp } from '../http/envelope';
import { Review } from './review.entity';
import { ReviewTestsSchema } from './review-tests.schemas';
import { REVIEW_KINDS } from './statuses';

const PendingReview = z
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
const PendingReviews = z.object({ reviews: z.array(PendingReview) });

export function mountReviewRoutes(admin: ApiRoot<AdminAuth>, ctx: AppContext): void {
  admin.route({
    method: 'get',
    path: '/reviews',
    summary: 'Pending reviews (personas and marketplace items)',
    success: { description: 'Every review waiting for a decision, oldest first', schema: PendingReviews },
    handler: async () => {
      const pending = await ctx.orm.em.find(
        Review,
        { status: 'pending' },
        { orderBy: { submittedAt: 'asc' } },
      );
      return {
        reviews: pending.map((r) => ({
          kind: r.kind,
          id: r.subjectId,
          name: r.subjectName,
          accountId: r.accountId,
          submittedAt: r.submittedAt.toISOString(),
          dueBy: r.dueBy.toISOString(),
          overdue: r.overdue,
          workflowId: r.id,
          tests: r.tests ?? null,
        })),
      };
    },
  });
}

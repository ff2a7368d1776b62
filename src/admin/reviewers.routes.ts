import { z } from 'zod';
import { listReviewers, setAccountReviewer } from '../accounts';
import type { AdminAuth } from '../auth/admin-auth';
import type { AppContext } from '../common/context';
import type { ApiRoot } from '../http/api-router';
import { timestamp } from '../http/envelope';

const PublisherParams = z.object({ publisherId: z.string().min(1).max(64) });
const ReviewerBody = z
  .strictObject({
    reviewer: z
      .boolean()
      .meta({ description: 'true marks the console user as reviewer, false unmarks them' }),
  })
  .meta({ id: 'SetReviewerRequest' });
const ReviewerMark = z
  .object({
    publisherId: z.string(),
    email: z.string().nullable(),
    reviewer: z.boolean(),
    reviewerSince: timestamp().nullable().meta({ description: 'When the mark was made; null when unmarked' }),
  })
  .meta({ id: 'ReviewerMark' });

/**
 * Reviewers: console users an operator marks as reviewer may use the review routes (the pending
 * reviews, a review, the decisions) with their ID token, and the console shows them the review queue.
 */
export function mountReviewerRoutes(admin: ApiRoot<AdminAuth>, ctx: AppContext): void {
  admin
    .route({
      method: 'put',
      path: '/accounts/:publisherId/reviewer',
      summary: 'Mark (or unmark) a console user as reviewer',
      description:
        "A reviewer's ID token is taken by the review routes (GET /reviews, GET /reviews/:id, POST /personas/:id/review, POST /marketplace/items/:id/review) from the next call on; unmarked, it is refused there with 403. An unknown account → 404.",
      params: PublisherParams,
      body: ReviewerBody,
      success: { description: "The account's mark", schema: ReviewerMark },
      handler: ({ params, body }) => setAccountReviewer(ctx.orm.em, params.publisherId, body.reviewer),
    })
    .route({
      method: 'get',
      path: '/reviewers',
      summary: 'The console users marked as reviewers',
      success: {
        description: 'Every reviewer, the earliest marked first',
        schema: z.object({ reviewers: z.array(ReviewerMark) }),
      },
      handler: async () => ({ reviewers: await listReviewers(ctx.orm.em) }),
    });
}

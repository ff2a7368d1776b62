import { z } from 'zod';
import type { AdminAuth } from '../auth/admin-auth';
import type { AppContext } from '../common/context';
import type { ApiRoot } from '../http/api-router';
import { Review } from './review.entity';
import { PendingReviewSchema, pendingReviewView } from './review-view';

const PendingReviews = z.object({ reviews: z.array(PendingReviewSchema) });

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
      return { reviews: pending.map(pendingReviewView) };
    },
  });
}

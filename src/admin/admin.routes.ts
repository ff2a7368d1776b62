import { z } from 'zod';
import { setAccountPlan } from '../accounts';
import type { AdminAuth } from '../auth/admin-auth';
import type { AppContext } from '../common/context';
import { PLANS } from '../config/env';
import type { ApiRoot } from '../http/api-router';
import { timestamp } from '../http/envelope';

const PlanBody = z.strictObject({ plan: z.enum(PLANS) }).meta({ id: 'SetPlanRequest' });
const PublisherParams = z.object({ publisherId: z.string().min(1).max(64) });
const PlanResult = z.object({
  success: z.literal(true),
  publisherId: z.string(),
  plan: z.enum(PLANS),
  updatedAt: timestamp(),
});

export function mountAdminRoutes(admin: ApiRoot<AdminAuth>, ctx: AppContext): void {
  admin.route({
    method: 'put',
    path: '/accounts/:publisherId/plan',
    summary: "Set an account's plan",
    description: 'Plan budgets and plan limits change on the next request.',
    params: PublisherParams,
    body: PlanBody,
    success: { description: 'The new plan', schema: PlanResult },
    handler: async ({ params, body }) => {
      const account = await setAccountPlan(ctx.orm.em, params.publisherId, body.plan);
      return {
        success: true as const,
        publisherId: account.id,
        plan: account.plan,
        updatedAt: account.updatedAt.toISOString(),
      };
    },
  });
}

import { z } from 'zod';
import { accountPlanQuery, setAccountPlan } from '../accounts';
import type { AdminAuth } from '../auth/admin-auth';
import { accountChange } from '../auth/key-cache';
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
      // answered once every API instance's key cache has dropped the account's keys (as a revoke is)
      const { sql, bindings } = accountPlanQuery(params.publisherId);
      const { rows } = await ctx.orm.em
        .getConnection()
        .getKnex()
        .raw<{ rows: { plan: string }[] }>(sql, bindings);
      const since = ctx.keyCache.mark();
      const account = await setAccountPlan(ctx.orm.em, params.publisherId, body.plan);
      if (rows[0] && rows[0].plan !== account.plan)
        await ctx.keyCache.awaitChange(accountChange(account.id), since);
      return {
        success: true as const,
        publisherId: account.id,
        plan: account.plan,
        updatedAt: account.updatedAt.toISOString(),
      };
    },
  });
}

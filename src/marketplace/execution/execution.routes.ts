import type { MarketplaceUser } from '../../auth/marketplace-auth';
import type { AppContext } from '../../common/context';
import type { ApiRoot } from '../../http/api-router';
import { ApiError, forbidden, notFound, validationFailed } from '../../http/errors';
import {
  ExecuteBody,
  Execution,
  ItemIdParams,
  PeriodQuery,
  QuotaCheck,
  TierHeaders,
  Usage,
  UsageSummary,
} from './execution.schemas';
import { type ExecuteInstalledToolResult, executeInstalledTool } from './execution.service';
import { itemUsage, quotaCheck, usageSummary } from './usage.service';

/** A refused run as its HTTP error. */
function refusal(
  result: Extract<ExecuteInstalledToolResult, { status: 'refused' }>,
  res: { setHeader(n: string, v: string): void },
) {
  switch (result.reason) {
    case 'not_found':
      return notFound('Item');
    case 'not_installed':
      return forbidden(result.message);
    case 'gone':
      return new ApiError(410, 'GONE', result.message);
    case 'not_executable':
    case 'invalid_arguments':
      return validationFailed(result.validationErrors ?? [], result.message);
    case 'quota_exceeded':
      res.setHeader('Retry-After', String(result.retryAfterSeconds ?? 60));
      return new ApiError(429, 'QUOTA_EXCEEDED', result.message);
  }
}

export function mountExecutionRoutes(user: ApiRoot<MarketplaceUser>, ctx: AppContext): void {
  const em = () => ctx.orm.em;
  user
    .route({
      method: 'post',
      path: '/execute/:itemId',
      summary: 'Run an installed tool (metered, quota-checked)',
      description:
        'Runs the tool (MCP tools/call, or an HTTP POST of the arguments, through the SSRF guard; 30 s, 1 MiB) and records one metering record. Not installed → 403; removed → 410; an agent or a non-executable runtime, or arguments not matching interface.inputSchema → 400; past the monthly quota of the tier → 429 `QUOTA_EXCEEDED` with Retry-After (exact under concurrency). A tool that fails answers 200 with `success: false` and an `errorCode`.',
      params: ItemIdParams,
      headers: TierHeaders,
      body: ExecuteBody,
      rateClass: 'expensive',
      success: { description: 'The run', schema: Execution },
      handler: async ({ auth, params, headers, body, res }) => {
        const result = await executeInstalledTool(ctx, {
          userId: auth.userId,
          tier: headers['x-subscription-tier'],
          itemId: params.itemId,
          arguments: body.arguments,
        });
        if (result.status === 'refused') throw refusal(result, res);
        const { status: _status, ...run } = result;
        return run;
      },
    })
    .route({
      method: 'get',
      path: '/usage/summary',
      summary: 'Your usage of every item in a month',
      headers: TierHeaders,
      query: PeriodQuery,
      success: { description: 'Totals per item and their sum', schema: UsageSummary },
      handler: ({ auth, headers, query }) =>
        usageSummary(em(), auth.userId, headers['x-subscription-tier'], query.period),
    })
    .route({
      method: 'get',
      path: '/usage/:itemId',
      summary: 'Your usage of one item in a month',
      params: ItemIdParams,
      headers: TierHeaders,
      query: PeriodQuery,
      success: { description: 'Totals and a daily breakdown', schema: Usage },
      handler: ({ auth, params, headers, query }) =>
        itemUsage(em(), auth.userId, headers['x-subscription-tier'], params.itemId, query.period),
    })
    .route({
      method: 'get',
      path: '/quota/check/:itemId',
      summary: 'May you run this item now?',
      description:
        'Always 200 for a known item: `allowed` false with a `reason` when the quota is used up (or the item is not installed or removed).',
      params: ItemIdParams,
      headers: TierHeaders,
      success: { description: 'The quota check', schema: QuotaCheck },
      handler: ({ auth, params, headers }) =>
        quotaCheck(em(), auth.userId, headers['x-subscription-tier'], params.itemId),
    });
}

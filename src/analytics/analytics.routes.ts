import type { ConsoleAuth } from '../accounts';
import type { AppContext } from '../common/context';
import type { ApiRoot } from '../http/api-router';
import {
  ErrorsEnvelope,
  OverviewEnvelope,
  PeriodQuery,
  PersonasEnvelope,
  SessionPeriodQuery,
  UsageEnvelope,
  UsageQuery,
} from './analytics.schemas';
import { analyticsErrors, analyticsOverview, analyticsPersonas, analyticsUsage } from './analytics.service';

const ENVIRONMENT_NOTE =
  '`environment` picks the traffic of `live` keys (default), `test` keys or `all`. API calls are those of the platform API (`/api/v2/developers`) by the account’s keys, counted in memory by each API process and written every second: a call shows here within about a second.';
const TEST_RUNS_NOTE =
  'The sessions of agent-test runs are left out unless `includeTestRuns=true` (docs/analytics.md "Test runs").';
const PERIOD_NOTE =
  '`period` is a rolling window ending with the current minute: `day` 24 h, `week` 7 days (default), `month` 30 days, `year` 365 days. Each `…Change` compares with the previous window of the same length: (current − previous) / previous, 0 when both are 0, 1 when only the previous one is 0.';

/** GET /analytics/overview|usage|personas|errors on the console root: the caller's account only. */
export function mountAnalyticsRoutes(console: ApiRoot<ConsoleAuth>, ctx: AppContext): void {
  const knex = () => ctx.orm.em.getConnection().getKnex();
  console
    .route({
      method: 'get',
      path: '/analytics/overview',
      summary: 'Analytics overview',
      description: `API calls, error rate and mean response time of the platform API; distinct users and active personas of voice sessions started in the period. ${PERIOD_NOTE} ${ENVIRONMENT_NOTE} ${TEST_RUNS_NOTE}`,
      query: SessionPeriodQuery,
      success: { description: 'The figures and their changes', schema: OverviewEnvelope },
      handler: ({ auth, query }) => analyticsOverview(knex(), auth.account.id, query),
    })
    .route({
      method: 'get',
      path: '/analytics/usage',
      summary: 'Usage per day',
      description: `One entry per UTC day from \`from\` to \`to\` (inclusive; default the last 30 days, today included; at most 366 days), days without traffic included: API calls, API errors (status ≥ 400) and distinct users of the sessions started that day. ${ENVIRONMENT_NOTE} ${TEST_RUNS_NOTE}`,
      query: UsageQuery,
      success: { description: 'Daily usage', schema: UsageEnvelope },
      handler: ({ auth, query }) => analyticsUsage(knex(), auth.account.id, query),
    })
    .route({
      method: 'get',
      path: '/analytics/personas',
      summary: 'Sessions per persona',
      description: `Per persona with a session started in the period: sessions (\`totalCalls\`), mean duration of those that ended (ms), distinct users, and the success rate of the post-call analyses completed in the period (\`successRate\`, of \`analyzedCalls\`; docs/sessions.md "Post-call analysis"), busiest first. ${PERIOD_NOTE} ${ENVIRONMENT_NOTE} ${TEST_RUNS_NOTE}`,
      query: SessionPeriodQuery,
      success: { description: 'Personas', schema: PersonasEnvelope },
      handler: ({ auth, query }) => analyticsPersonas(knex(), auth.account.id, query),
    })
    .route({
      method: 'get',
      path: '/analytics/errors',
      summary: 'Errors by code',
      description: `API error answers by their error code, and runtime failures: \`TOOL_FAILED\` (tool runs), \`WORKFLOW_FAILED\` (workflow executions), \`DELIVERY_FAILED\` (webhook deliveries that failed their last attempt; test sends excluded). Each with the message of its latest occurrence; most frequent first. ${PERIOD_NOTE} ${ENVIRONMENT_NOTE}`,
      query: PeriodQuery,
      success: { description: 'Errors', schema: ErrorsEnvelope },
      handler: ({ auth, query }) => analyticsErrors(knex(), auth.account.id, query),
    });
}

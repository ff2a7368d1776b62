import type { PlatformAuth } from '../auth/platform-auth';
import type { AppContext } from '../common/context';
import type { ApiRoot } from '../http/api-router';
import { ok, paged } from '../http/envelope';
import {
  ActivityEnvelope,
  ActivityIdParams,
  ActivityList,
  ActivityStatsEnvelope,
  ActivityStatsQuery,
  CreateActivityBody,
  DeletedActivity,
  ListActivitiesQuery,
  UpdateActivityBody,
} from './activities.schemas';
import {
  createActivity,
  deleteActivity,
  getActivity,
  listActivities,
  updateActivity,
} from './activities.service';
import { activityStats } from './activity-stats.service';

/**
 * The Activities API (docs/activities.md): custom events and metrics logged by the developer,
 * queried, aggregated, and read by voice sessions as the caller's context. Not to be confused with
 * the Temporal activity functions in the top-level `activities/`.
 */
export function mountActivityRoutes(platform: ApiRoot<PlatformAuth>, ctx: AppContext): void {
  const em = () => ctx.orm.em;
  platform
    .route({
      method: 'post',
      path: '/activities',
      idempotent: true,
      summary: 'Log an activity',
      description:
        "Emits `activity.created` (data: id, type, payload, userId, sessionId, personaId, occurredAt) to subscribed webhooks; webhooks filtered on a persona receive only that persona's activities.",
      scope: 'activities:write',
      body: CreateActivityBody,
      success: { status: 201, description: 'The activity', schema: ActivityEnvelope },
      handler: async ({ auth, body }) => ok(await createActivity(em(), auth, body)),
    })
    .route({
      method: 'get',
      path: '/activities',
      summary: 'Query activities',
      description: '`from` and `to` (both inclusive) filter on `occurredAt`.',
      scope: 'activities:read',
      query: ListActivitiesQuery,
      success: { description: 'Activities, newest occurredAt first', schema: ActivityList },
      handler: async ({ auth, query }) => {
        const { data, total } = await listActivities(em(), auth, query);
        return paged(data, { total, limit: query.limit, offset: query.offset });
      },
    })
    .route({
      method: 'get',
      path: '/activities/stats',
      summary: 'Aggregate statistics',
      description:
        'Counts in a window (default: the last 30 days, both ends inclusive), optionally grouped by `type`, UTC `day` or `user`. With `metric` (a dotted payload path), also sum, avg, min and max of its numeric values; activities whose value is missing or not a number are counted in `skipped`. Without `groupBy` there is exactly one group, `all`.',
      scope: 'activities:read',
      query: ActivityStatsQuery,
      success: { description: 'Totals and groups', schema: ActivityStatsEnvelope },
      handler: async ({ auth, query }) => ok(await activityStats(em(), auth, query)),
    })
    .route({
      method: 'get',
      path: '/activities/:id',
      summary: 'Get an activity',
      scope: 'activities:read',
      params: ActivityIdParams,
      success: { description: 'The activity', schema: ActivityEnvelope },
      handler: async ({ auth, params }) => ok(await getActivity(em(), auth, params.id)),
    })
    .route({
      method: 'put',
      path: '/activities/:id',
      summary: 'Update an activity',
      description: 'Any of `type`, `payload` (replaced whole) and `occurredAt`; at least one.',
      scope: 'activities:write',
      params: ActivityIdParams,
      body: UpdateActivityBody,
      success: { description: 'The updated activity', schema: ActivityEnvelope },
      handler: async ({ auth, params, body }) => ok(await updateActivity(em(), auth, params.id, body)),
    })
    .route({
      method: 'delete',
      path: '/activities/:id',
      summary: 'Delete an activity',
      scope: 'activities:write',
      params: ActivityIdParams,
      success: { description: 'Deleted', schema: DeletedActivity },
      handler: async ({ auth, params }) => ok(await deleteActivity(em(), auth, params.id)),
    });
}

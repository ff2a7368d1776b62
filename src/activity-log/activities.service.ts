import type { EntityManager, FilterQuery } from '@mikro-orm/postgresql';
import { deleteOwned, findOwned } from '../common/owned';
import type { Owner } from '../common/owner';
import { emitEvent } from '../events/emit';
import { validationFailed } from '../http/errors';
import type { CreateActivityInput, ListActivitiesInput, UpdateActivityInput } from './activities.schemas';
import { Activity } from './activity.entity';

/** An activity as every endpoint returns it. */
export function activityRecord(a: Activity) {
  return {
    id: a.id,
    type: a.type,
    payload: a.payload,
    userId: a.userId ?? null,
    sessionId: a.sessionId ?? null,
    personaId: a.personaId ?? null,
    occurredAt: a.occurredAt.toISOString(),
    createdAt: a.createdAt.toISOString(),
    updatedAt: a.updatedAt.toISOString(),
  };
}

export const findActivity = (em: EntityManager, owner: Owner, id: string) =>
  findOwned(em, Activity, owner, id, 'Activity');

/** Logs an activity and emits `activity.created` through the outbox, in one transaction. */
export async function createActivity(em: EntityManager, owner: Owner, input: CreateActivityInput) {
  const activity = await em.transactional(async (tem) => {
    const now = new Date();
    const a = tem.create(Activity, {
      account: owner.accountId,
      environment: owner.environment,
      type: input.type,
      payload: input.payload,
      userId: input.userId ?? null,
      sessionId: input.sessionId ?? null,
      personaId: input.personaId ?? null,
      occurredAt: input.occurredAt ? new Date(input.occurredAt) : now,
      createdAt: now,
      updatedAt: now,
    });
    const { createdAt: _created, updatedAt: _updated, ...data } = activityRecord(a);
    emitEvent(tem, {
      accountId: owner.accountId,
      environment: owner.environment,
      type: 'activity.created',
      // the event's persona column: webhooks filtered on a persona receive only that persona's activities
      personaId: data.personaId,
      data,
    });
    return a;
  });
  return activityRecord(activity);
}

/** `from` and `to` (both inclusive) as a filter on `occurredAt`; `from` after `to` is a 400. */
export function occurredBetween(from: string | undefined, to: string | undefined) {
  if (from && to && new Date(from).getTime() > new Date(to).getTime()) {
    throw validationFailed(['from: must not be after to']);
  }
  const range: { $gte?: Date; $lte?: Date } = {};
  if (from) range.$gte = new Date(from);
  if (to) range.$lte = new Date(to);
  return Object.keys(range).length ? { occurredAt: range } : {};
}

/** A page of the owner's activities matching the filters, newest `occurredAt` first, with the total. */
export async function listActivities(em: EntityManager, owner: Owner, query: ListActivitiesInput) {
  const where: FilterQuery<Activity> = {
    account: owner.accountId,
    environment: owner.environment,
    ...(query.type ? { type: query.type } : {}),
    ...(query.userId ? { userId: query.userId } : {}),
    ...(query.sessionId ? { sessionId: query.sessionId } : {}),
    ...(query.personaId ? { personaId: query.personaId } : {}),
    ...occurredBetween(query.from, query.to),
  };
  const [items, total] = await em.findAndCount(Activity, where, {
    orderBy: { occurredAt: 'desc', id: 'desc' },
    limit: query.limit,
    offset: query.offset,
  });
  return { data: items.map(activityRecord), total };
}

export async function getActivity(em: EntityManager, owner: Owner, id: string) {
  return activityRecord(await findActivity(em, owner, id));
}

export async function updateActivity(
  em: EntityManager,
  owner: Owner,
  id: string,
  changes: UpdateActivityInput,
) {
  const activity = await em.transactional(async (tem) => {
    const a = await findActivity(tem, owner, id);
    if (changes.type !== undefined) a.type = changes.type;
    if (changes.payload !== undefined) a.payload = changes.payload;
    if (changes.occurredAt !== undefined) a.occurredAt = new Date(changes.occurredAt);
    a.updatedAt = new Date();
    return a;
  });
  return activityRecord(activity);
}

export async function deleteActivity(em: EntityManager, owner: Owner, id: string) {
  await deleteOwned(em, Activity, owner, id, 'Activity');
  return { deleted: true as const, id };
}

/** What a voice session is given of a user's recent activity. */
export interface ContextActivity {
  id: string;
  type: string;
  payload: Record<string, unknown>;
  occurredAt: string;
  personaId: string | null;
  sessionId: string | null;
}

/**
 * The context a voice session loads for its caller: the `limit` (20) most recent activities (by
 * `occurredAt`, newest first) of `userId` in the owner's account and environment that concern
 * `personaId` or no persona at all (with `personaId` null: only those without a persona). One
 * backward range scan of `activities_owner_user_index`.
 */
export async function recentActivitiesForContext(
  em: EntityManager,
  owner: Owner,
  userId: string,
  personaId: string | null,
  limit = 20,
): Promise<ContextActivity[]> {
  const { sql, bindings } = contextActivitiesQuery(owner, userId, personaId, limit);
  const rows = await em
    .getConnection()
    .execute<ContextActivityRow[]>(sql, bindings, 'all', em.getTransactionContext());
  return rows.map(contextActivityOf);
}

/** A row of `contextActivitiesQuery` (as the driver gives it, or as JSON). */
export interface ContextActivityRow {
  id: string;
  type: string;
  payload: Record<string, unknown> | string;
  occurred_at: Date | string;
  persona_id: string | null;
  session_id: string | null;
}

/** recentActivitiesForContext's statement, newest first (also a subquery of a voice turn's context statement). */
export function contextActivitiesQuery(
  owner: Owner,
  userId: string,
  personaId: string | null,
  limit: number,
): { sql: string; bindings: unknown[] } {
  return {
    sql: `select id, type, payload, occurred_at, persona_id, session_id from activities
        where account_id = ? and environment = ? and user_id = ?
          and (persona_id is null or persona_id = ?)
        order by occurred_at desc, id desc limit ?`,
    bindings: [owner.accountId, owner.environment, userId, personaId, Math.max(0, Math.floor(limit))],
  };
}

export function contextActivityOf(r: ContextActivityRow): ContextActivity {
  return {
    id: r.id,
    type: r.type,
    payload: typeof r.payload === 'string' ? JSON.parse(r.payload) : r.payload,
    occurredAt: new Date(r.occurred_at).toISOString(),
    personaId: r.persona_id,
    sessionId: r.session_id,
  };
}

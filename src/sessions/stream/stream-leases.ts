import type { CoreContext } from '../../common/context';
import type { Plan } from '../../config/env';
import { preparedQuery } from '../../db/prepared';

/** Live streams an account may hold open at once, whatever the environment (docs/voice-stream.md "Limits"). */
export const LIVE_STREAM_LIMITS: Record<Plan, number | null> = { free: 5, pro: 50, enterprise: null };

/** A stream's slot lapses this long after its last renewal (its API process died). */
export const STREAM_LEASE_MS = 30_000;

/**
 * The cool-down after the account's n-th stream dropped for abuse in ten minutes: 10 s, 30 s, 90 s,
 * then 5 minutes (docs/voice-stream.md "Limits").
 */
export const COOLDOWN_SECONDS = [10, 30, 90, 300];
/** Strikes older than this are forgotten. */
const STRIKE_MEMORY_S = 600;

/**
 * The slot; or the plan's limit that refused it, or the seconds left of the account's cool-down;
 * with the account's plan either way.
 */
export type LeaseOutcome =
  | { ok: true; plan: Plan }
  | { ok: false; limit: number; plan: Plan }
  | { ok: false; coolingDownS: number; plan: Plan };

/**
 * Takes one of the account's live-stream slots for `leaseId`, in PostgreSQL so every API instance
 * counts the same streams: under a transaction-scoped advisory lock on the account (two upgrades at
 * once cannot both take the last slot), lapsed slots are let go, the live ones counted against the
 * plan's limit, and the slot taken if one is free.
 */
export async function takeStreamLease(
  ctx: CoreContext,
  lease: { leaseId: string; accountId: string; sessionId: string },
): Promise<LeaseOutcome> {
  const knex = ctx.orm.em.getConnection().getKnex();
  return knex.transaction(async (trx) => {
    await trx.raw('select pg_advisory_xact_lock(hashtextextended(?, 0))', [
      `live-streams:${lease.accountId}`,
    ]);
    const account = await trx('accounts').select('plan').where({ id: lease.accountId }).first();
    const plan = (account?.plan ?? 'free') as Plan;
    const limit = LIVE_STREAM_LIMITS[plan];
    const cooldown = await trx.raw(
      'select ceil(extract(epoch from "until" - now()))::int as wait from live_stream_cooldowns where account_id = ? and "until" > now()',
      [lease.accountId],
    );
    if (cooldown.rows.length) return { ok: false, coolingDownS: Math.max(1, cooldown.rows[0].wait), plan };
    await trx('live_stream_leases')
      .where({ account_id: lease.accountId })
      .andWhere('expires_at', '<', knex.fn.now())
      .delete();
    if (limit !== null) {
      const [{ count }] = await trx('live_stream_leases').where({ account_id: lease.accountId }).count();
      if (Number(count) >= limit) return { ok: false, limit, plan };
    }
    await trx.raw(
      `insert into live_stream_leases (id, account_id, session_id, expires_at)
       values (?, ?, ?, now() + make_interval(secs => ?))`,
      [lease.leaseId, lease.accountId, lease.sessionId, STREAM_LEASE_MS / 1000],
    );
    return { ok: true, plan };
  });
}

/** Keeps a stream's slot while it is open. */
export async function renewStreamLease(ctx: CoreContext, leaseId: string): Promise<void> {
  await preparedQuery(
    ctx.orm.em.getConnection().getKnex(),
    'live-stream-lease-renew',
    'update live_stream_leases set expires_at = now() + make_interval(secs => ?) where id = ?',
  )([STREAM_LEASE_MS / 1000, leaseId]);
}

/** Gives the slot back (the stream closed). */
export async function releaseStreamLease(ctx: CoreContext, leaseId: string): Promise<void> {
  await preparedQuery(
    ctx.orm.em.getConnection().getKnex(),
    'live-stream-lease-release',
    'delete from live_stream_leases where id = ?',
  )([leaseId]);
}

/**
 * A stream of the account's was dropped for abuse: its next streams wait out a cool-down, longer for
 * each drop of the last ten minutes. Every API instance sees it (PostgreSQL), as it sees the slots.
 */
export async function recordStreamAbuse(ctx: CoreContext, accountId: string): Promise<void> {
  await preparedQuery(
    ctx.orm.em.getConnection().getKnex(),
    'live-stream-abuse',
    `with strike as (
       select case when c.last_strike_at > now() - make_interval(secs => ?) then c.strikes + 1 else 1 end as n
       from (select 1) one left join live_stream_cooldowns c on c.account_id = ?
     )
     insert into live_stream_cooldowns (account_id, strikes, last_strike_at, "until")
     select ?, n, now(), now() + make_interval(secs => (?::int[])[least(n, ?)]) from strike
     on conflict (account_id) do update set strikes = excluded.strikes,
       last_strike_at = excluded.last_strike_at, "until" = greatest(live_stream_cooldowns."until", excluded."until")`,
  )([STRIKE_MEMORY_S, accountId, accountId, `{${COOLDOWN_SECONDS.join(',')}}`, COOLDOWN_SECONDS.length]);
}

import type { CoreContext } from '../../common/context';
import type { Plan } from '../../config/env';
import { preparedQuery } from '../../db/prepared';

/** Live streams an account may hold open at once, whatever the environment (docs/voice-stream.md "Limits"). */
export const LIVE_STREAM_LIMITS: Record<Plan, number | null> = { free: 5, pro: 50, enterprise: null };

/** A stream's slot lapses this long after its last renewal (its API process died). */
export const STREAM_LEASE_MS = 30_000;

/** The slot, or the plan's limit that refused it; with the account's plan either way. */
export type LeaseOutcome = { ok: true; plan: Plan } | { ok: false; limit: number; plan: Plan };

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

import type { CoreContext } from '../common/context';
import { preparedQuery } from '../db/prepared';

/**
 * A session answers one turn at a time (docs/sessions.md "Concurrent turns"). Before a turn goes to
 * the session's workflow, the API claims the session in PostgreSQL, so every API instance sees the
 * claim; a turn that finds the session claimed is refused (409) without reaching Temporal. The claim's
 * id is the turn's update id: the statement that records the turn removes it (src/sessions/turn-records.ts,
 * no round trip of its own), the API removes it when the turn fails, and it expires after `ttlMs` if
 * its API process died mid-turn.
 *
 * The claim as SQL (bindings: session id, claim id, ttl in seconds, session id): taken only while
 * the session is active, returning the claim's id when taken. A claim is taken over when it lapsed,
 * or by its own id: the same turn taken again (a worker's step run again after its worker died,
 * src/sessions/turn-once.ts) goes on at once, as the one turn it is.
 */
export const CLAIM_ACTIVE_SESSION_SQL = `insert into session_turn_claims (session_id, claim_id, expires_at)
     select ?, ?, now() + make_interval(secs => ?)
      where exists (select 1 from sessions where id = ? and status = 'active')
     on conflict (session_id) do update set claim_id = excluded.claim_id, expires_at = excluded.expires_at
      where session_turn_claims.expires_at < now() or session_turn_claims.claim_id = excluded.claim_id
     returning claim_id`;

export async function claimTurn(
  ctx: CoreContext,
  claim: { sessionId: string; claimId: string; ttlMs: number },
): Promise<boolean> {
  const rows = await preparedQuery<{ claim_id: string }>(
    ctx.orm.em.getConnection().getKnex(),
    'session-turn-claim',
    `insert into session_turn_claims (session_id, claim_id, expires_at)
     values (?, ?, now() + make_interval(secs => ?))
     on conflict (session_id) do update set claim_id = excluded.claim_id, expires_at = excluded.expires_at
      where session_turn_claims.expires_at < now()
     returning claim_id`,
  )([claim.sessionId, claim.claimId, claim.ttlMs / 1000]);
  return rows.length === 1;
}

/** Lets the session's next turn in (only the claim's own holder releases it). */
export async function releaseTurn(ctx: CoreContext, claim: { sessionId: string; claimId: string }) {
  await preparedQuery(
    ctx.orm.em.getConnection().getKnex(),
    'session-turn-release',
    'delete from session_turn_claims where session_id = ? and claim_id = ?',
  )([claim.sessionId, claim.claimId]);
}

/** Extends a claim its holder still holds (a live stream renews its own); false if it lapsed or is another's. */
export async function renewClaim(
  ctx: CoreContext,
  claim: { sessionId: string; claimId: string; ttlMs: number },
): Promise<boolean> {
  const rows = await preparedQuery<{ claim_id: string }>(
    ctx.orm.em.getConnection().getKnex(),
    'session-turn-claim-renew',
    `update session_turn_claims set expires_at = now() + make_interval(secs => ?)
      where session_id = ? and claim_id = ? returning claim_id`,
  )([claim.ttlMs / 1000, claim.sessionId, claim.claimId]);
  return rows.length === 1;
}

/**
 * A turn's claim kept alive while its holder runs the turn: renewed every third of `ttlMs`, so a
 * holder that dies mid-turn (its API process or worker killed) stops renewing and the claim lapses
 * within `ttlMs`, not after the turn's longest possible wait. Returns the function that stops it.
 */
export function keepClaimRenewed(
  ctx: CoreContext,
  claim: { sessionId: string; claimId: string; ttlMs: number },
): () => void {
  const renewal = setInterval(() => {
    renewClaim(ctx, claim).catch((error) =>
      ctx.logger.warn(
        { err: error, sessionId: claim.sessionId },
        'could not renew the turn claim; it may lapse',
      ),
    );
  }, claim.ttlMs / 3);
  return () => clearInterval(renewal);
}

import { RetryableRefusal } from '../../auth/refused-credentials';
import type { CoreContext } from '../../common/context';
import { preparedQuery } from '../../db/prepared';
import { ApiError } from '../../http/errors';

/**
 * The seconds left of the account's cool-down (its streams were dropped for abuse a moment ago:
 * docs/voice-stream.md "Limits"), or null when it has none. One primary-key read.
 */
export async function coolDownSecondsLeft(ctx: CoreContext, accountId: string): Promise<number | null> {
  const rows = await preparedQuery<{ wait: number }>(
    ctx.orm.em.getConnection().getKnex(),
    'live-stream-cooldown',
    'select ceil(extract(epoch from "until" - now()))::int as wait from live_stream_cooldowns where account_id = ? and "until" > now()',
  )([accountId]);
  return rows.length ? Math.max(1, rows[0].wait) : null;
}

/** The account's streams were dropped for abuse a moment ago: a 429 until its cool-down is over. */
export function coolingDown(seconds: number, what: 'stream' | 'session'): RetryableRefusal {
  const next = what === 'stream' ? 'open a new one' : 'start a new session';
  return new RetryableRefusal(
    new ApiError(
      429,
      'RATE_LIMIT_EXCEEDED',
      `This account's live streams were dropped for flooding or not reading; ${next} in ${seconds} s`,
    ),
    seconds,
  );
}

/**
 * Refuses to start a session for an account in its cool-down, before anything is written or any
 * workflow started: a client that reconnects in a tight loop after its stream was dropped costs a
 * read and a 429, not a session, its workflow and a refused upgrade.
 */
export async function refuseSessionWhileCoolingDown(ctx: CoreContext, accountId: string): Promise<void> {
  const wait = await coolDownSecondsLeft(ctx, accountId);
  if (wait !== null) throw coolingDown(wait, 'session');
}

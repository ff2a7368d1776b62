import type { AppContext } from '../../common/context';
import type { Plan } from '../../config/env';
import type { ClientTokenOwner } from './client-token';
import type { StreamErrorCode } from './protocol';

export type TurnBudget = { allowed: true } | { allowed: false; code: StreamErrorCode; message: string };

/**
 * Spends one turn of the account's budget for a streamed turn, as a REST turn spends it (the plan's
 * and the `standard` class's): the console's when the stream was opened with a console client
 * token, else its environment's keys'. Budgets that cannot be read refuse the turn (never a free pass).
 */
export async function spendStreamTurn(
  ctx: AppContext,
  call: { sessionId: string; owner: ClientTokenOwner; plan: Plan },
): Promise<TurnBudget> {
  try {
    const spent = await ctx.rateLimits.spend(call.owner, call.plan, 'standard');
    return spent.allowed ? spent : { allowed: false, code: 'RATE_LIMITED', message: spent.message };
  } catch (error) {
    ctx.logger.warn({ err: error, sessionId: call.sessionId }, 'a turn budget could not be read');
    return {
      allowed: false,
      code: 'SERVICE_UNAVAILABLE',
      message: 'The turn budget could not be read; try again shortly',
    };
  }
}

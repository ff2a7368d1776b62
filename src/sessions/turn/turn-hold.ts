import { turnLeaseSignal } from '../../../workflows/messages';
import type { AppContext } from '../../common/context';

/**
 * How long a turn holds its session without news of it (docs/sessions.md "Idleness"): the hold is
 * renewed every third of this while the turn runs, so only a turn whose API process died lets it lapse.
 */
export const TURN_LEASE_MS = 30_000;
const RENEW_EVERY_MS = TURN_LEASE_MS / 3;

/**
 * A turn's hold on its session: once begun, the session's workflow does not end for idleness under
 * the turn, whatever the transport (the REST turn, the live stream). The turn engine begins it before
 * anything that takes a while (the model); a transport whose turn plays its reply begins it at once.
 * Each message is a `turnLease` signal sent without waiting for it, so the turn never waits for
 * Temporal here; a signal that fails is logged, and the next renewal sends it again. The turn's
 * record ends the hold in the workflow; a turn that ends without a record gives it back.
 */
export class TurnHold {
  private begun = false;
  private released = false;
  private renewal?: NodeJS.Timeout;

  constructor(
    private readonly ctx: AppContext,
    private readonly sessionId: string,
    private readonly turnId: string,
  ) {}

  /** The turn is under way: hold the session, renewed until release(). Only the first call sends. */
  begin(): void {
    if (this.begun || this.released) return;
    this.begun = true;
    this.send(TURN_LEASE_MS);
    this.renewal = setInterval(() => this.send(TURN_LEASE_MS), RENEW_EVERY_MS);
    this.renewal.unref();
  }

  /**
   * The turn is over: no more renewals. `recorded`: its record ended the hold already; otherwise (the
   * turn failed) the hold is given back, so the session's idleness counts from now.
   */
  release(recorded: boolean): void {
    if (this.released) return;
    this.released = true;
    clearInterval(this.renewal);
    if (this.begun && !recorded) this.send(0);
  }

  private send(leaseMs: number): void {
    const { ctx, sessionId, turnId } = this;
    ctx.temporal
      .withAbortSignal(AbortSignal.timeout(RENEW_EVERY_MS), () =>
        ctx.temporal.workflow.getHandle(sessionId).signal(turnLeaseSignal, { turnId, leaseMs }),
      )
      .catch((error) =>
        ctx.logger.warn(
          { err: error, sessionId, turnId, leaseMs },
          'could not tell the session about its turn under way',
        ),
      );
  }
}

import type { AppContext } from '../../common/context';
import { claimTurn, releaseTurn, renewClaim } from '../turn-claims';
import { releaseStreamLease, renewStreamLease } from './stream-leases';

/** A live stream holds its session for this long, renewed every third of it while it is open. */
export const STREAM_CLAIM_MS = 30_000;

/** The session as the renewal reads it. */
export interface HeldSessionStatus {
  status?: string;
  endReason?: string;
  turnCount: number;
}

/**
 * What a live call holds while it is open: its session (the turn claim, so no second stream or REST
 * turn runs beside it) and one of its account's live-stream slots (taken at the upgrade). Both are
 * renewed every third of their lease, and let go once when the call ends.
 */
export class StreamHold {
  private claimed = false;
  private released = false;

  constructor(
    private readonly ctx: AppContext,
    /** `leaseId`: the account's live-stream slot, when the call holds one (a phone call holds none). */
    private readonly ids: { sessionId: string; claimId: string; leaseId?: string },
  ) {}

  private get claim() {
    return { sessionId: this.ids.sessionId, claimId: this.ids.claimId, ttlMs: STREAM_CLAIM_MS };
  }

  /** Takes the session; false when another stream or a REST turn holds it. */
  async claimSession(): Promise<boolean> {
    this.claimed = await claimTurn(this.ctx, this.claim);
    // the call ended while the claim was being taken: it goes at once
    if (this.claimed && this.released) {
      await releaseTurn(this.ctx, this.ids).catch(() => undefined);
      return false;
    }
    return this.claimed;
  }

  /**
   * Renews both holds and reads the session's status (ended elsewhere: idle timeout, POST /end). A
   * claim that lapsed meanwhile (the database was away longer than its lease) is taken again.
   */
  async renew(): Promise<HeldSessionStatus> {
    const [renewed, status] = await Promise.all([
      renewClaim(this.ctx, this.claim),
      this.sessionStatus(),
      this.ids.leaseId ? renewStreamLease(this.ctx, this.ids.leaseId) : undefined,
    ]);
    if (!renewed && status.status === 'active' && !this.released) await claimTurn(this.ctx, this.claim);
    return status;
  }

  /** Lets the session and the slot go (only this call's own), for the next stream or REST turn. */
  async release(): Promise<void> {
    if (this.released) return;
    this.released = true;
    const claim = this.claimed ? releaseTurn(this.ctx, this.ids) : undefined;
    await Promise.all([
      claim?.catch(() => undefined),
      this.ids.leaseId ? releaseStreamLease(this.ctx, this.ids.leaseId).catch(() => undefined) : undefined,
    ]);
  }

  private async sessionStatus(): Promise<HeldSessionStatus> {
    const [row] = await this.ctx.orm.em
      .getConnection()
      .execute('select status, end_reason, turn_count from sessions where id = ?', [this.ids.sessionId]);
    return { status: row?.status, endReason: row?.end_reason, turnCount: Number(row?.turn_count ?? 0) };
  }
}

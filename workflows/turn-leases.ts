/**
 * The turns under way in one voice session, as the session's workflow knows them (docs/sessions.md
 * "Idleness"): each holds the session open until its record arrives, the API gives it back (the turn
 * failed), or its lease lapses (the API process that ran it died). Pure bookkeeping on the workflow's
 * clock (`now`, from the workflow's Date.now()); the workflow decides what to do with it.
 */

/** The longest a single lease may hold a session, whatever the API asks for. */
const MAX_LEASE_MS = 5 * 60_000;
/** How many ended turns are remembered, so that a renewal arriving after its turn's record is ignored. */
const ENDED_KEPT = 256;

export class TurnLeases {
  /** turn id → when it was last heard of and when its lease lapses (workflow time, ms). */
  private readonly open = new Map<string, { renewedAt: number; lapsesAt: number }>();
  /** Turns recorded or given back in this run, oldest first. */
  private readonly ended = new Set<string>();

  /**
   * A turn began or is still under way: it holds the session for `leaseMs` from `now`. A turn that
   * already ended is not opened again (a renewal that was overtaken by the record).
   */
  hold(turnId: string, leaseMs: number, now: number): void {
    if (this.ended.has(turnId)) return;
    const lease = Math.min(Math.max(0, leaseMs), MAX_LEASE_MS);
    this.open.set(turnId, { renewedAt: now, lapsesAt: now + lease });
  }

  /** The turn was recorded, or ended without a record: it no longer holds the session. */
  end(turnId: string): void {
    this.open.delete(turnId);
    this.ended.add(turnId);
    if (this.ended.size > ENDED_KEPT) this.ended.delete(this.ended.values().next().value as string);
  }

  /** Whether this turn holds the session now. */
  holds(turnId: string, now: number): boolean {
    const lease = this.open.get(turnId);
    return lease !== undefined && lease.lapsesAt > now;
  }

  /** The turns that hold the session, lapsed or not (the state query). */
  turnIds(): string[] {
    return [...this.open.keys()];
  }

  /** Whether any turn holds the session (a condition's predicate: reads only, lapses included). */
  any(): boolean {
    return this.open.size > 0;
  }

  /**
   * Drops the leases that lapsed by `now`; answers when the last of them was last heard of (the
   * session's idleness counts from there), or undefined when none lapsed.
   */
  dropLapsed(now: number): number | undefined {
    let lastHeard: number | undefined;
    for (const [turnId, lease] of this.open) {
      if (lease.lapsesAt > now) continue;
      this.open.delete(turnId);
      lastHeard = Math.max(lastHeard ?? 0, lease.renewedAt);
    }
    return lastHeard;
  }

  /** How long until the next open lease lapses (ms from `now`, at least 1), or undefined with none open. */
  nextLapseIn(now: number): number | undefined {
    let next: number | undefined;
    for (const lease of this.open.values()) next = Math.min(next ?? lease.lapsesAt, lease.lapsesAt);
    return next === undefined ? undefined : Math.max(1, next - now);
  }
}

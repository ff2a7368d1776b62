/** A reply's segment on the reply's playback clock (ms from its first audio). */
export interface PlacedSegment {
  startMs: number;
  endMs: number;
}

/**
 * Where the caller's player is in a reply (docs/voice-stream.md "Reply audio"): what was heard when
 * the caller interrupts, and when the reply has played. A browser's player says nothing back, so
 * its position is reckoned in real time from the first audio sent (`RealTimePlayback`); a phone
 * carrier confirms each segment once it has played (a Twilio `mark` echoed), and what it confirmed
 * is what was heard (`ConfirmedPlayback`).
 */
export interface ReplyPlayback {
  /**
   * A segment of `durationMs` goes out at `now`: where it plays, after the segment before it, or at
   * once if the player has run dry.
   */
  place(durationMs: number, now: number): PlacedSegment;
  /**
   * More audio of the last segment placed, `durationMs` of it, goes out at `now` (a segment that
   * streams): it plays after what came before, or at once if the player has run dry.
   */
  extend(durationMs: number, now: number): PlacedSegment;
  /** How far the caller's player has got on the reply's clock by `now` (or by the stop). */
  heardMs(now: number): number;
  /** The reply was stopped (interrupted) at `now`: nothing after it counts as heard. */
  stop(now: number): void;
  /** Answers once everything sent has played, or at once when `signal` aborts. */
  played(signal: AbortSignal): Promise<void>;
}

/** Answers after `ms`, or at once when `signal` aborts. */
function waitFor(ms: number, signal: AbortSignal): Promise<void> {
  if (ms <= 0 || signal.aborted) return Promise.resolve();
  return new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done);
  });
}

/** The player plays in real time from the first audio sent (a browser's Web Audio player). */
export class RealTimePlayback implements ReplyPlayback {
  protected startedAt: number | undefined;
  protected stoppedAt: number | undefined;
  protected readonly segments: PlacedSegment[] = [];

  place(durationMs: number, now: number): PlacedSegment {
    this.startedAt ??= now;
    const startMs = Math.max(this.segments.at(-1)?.endMs ?? 0, now - this.startedAt);
    const segment = { startMs, endMs: startMs + durationMs };
    this.segments.push(segment);
    return segment;
  }

  extend(durationMs: number, now: number): PlacedSegment {
    const last = this.segments.at(-1);
    if (!last || this.startedAt === undefined) return this.place(durationMs, now);
    last.endMs = Math.max(last.endMs, now - this.startedAt) + durationMs;
    return last;
  }

  heardMs(now: number): number {
    if (this.startedAt === undefined) return 0;
    return (this.stoppedAt ?? now) - this.startedAt;
  }

  stop(now: number): void {
    this.stoppedAt ??= now;
  }

  async played(signal: AbortSignal): Promise<void> {
    const last = this.segments.at(-1);
    if (this.startedAt === undefined || !last) return;
    await waitFor(this.startedAt + last.endMs - Date.now(), signal);
  }
}

/** How long past its reckoned end a reply waits for the carrier's last confirmation. */
export const CONFIRMATION_GRACE_MS = 5000;

/**
 * A player that confirms each segment once it has played (a phone carrier echoing a `mark`): the
 * segments confirmed were heard, and the one after them, if it was sent, is playing (a segment cut
 * short counts as heard, as on the browser's clock). Confirmations after the stop do not count (a
 * carrier echoes the marks it drops on `clear`). A carrier that never confirms (the call is gone)
 * holds `played` at most `CONFIRMATION_GRACE_MS` past the reckoned end.
 */
export class ConfirmedPlayback extends RealTimePlayback {
  private confirmed = 0;
  private stopped = false;
  private readonly waiting = new Set<() => void>();

  /** The carrier has played the segments up to and including `index` (its mark came back). */
  confirm(index: number): void {
    if (this.stopped) return;
    this.confirmed = Math.max(this.confirmed, Math.min(index + 1, this.segments.length));
    if (this.confirmed === this.segments.length) for (const wake of this.waiting) wake();
  }

  override heardMs(): number {
    if (this.confirmed === 0 && this.segments.length === 0) return 0;
    const playing = this.segments[this.confirmed];
    return playing ? playing.startMs : (this.segments[this.confirmed - 1]?.endMs ?? 0);
  }

  override stop(now: number): void {
    super.stop(now);
    this.stopped = true;
  }

  override async played(signal: AbortSignal): Promise<void> {
    const last = this.segments.at(-1);
    if (this.startedAt === undefined || !last || this.confirmed === this.segments.length) return;
    const graceEnd = Math.max(0, this.startedAt + last.endMs - Date.now()) + CONFIRMATION_GRACE_MS;
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.waiting.delete(done);
        signal.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, graceEnd);
      this.waiting.add(done);
      if (signal.aborted) done();
      else signal.addEventListener('abort', done, { once: true });
    });
  }
}

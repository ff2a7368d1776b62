/**
 * What one live stream may ask of its API process (docs/voice-stream.md "Limits"): frames per
 * second, caller audio at real time, and error notices. Each is a token bucket checked synchronously
 * on the frame's own tick: a flood costs a counter, not a promise, a timer or a message per frame.
 * (rate-limiter-flexible, which keeps the API's shared budgets, answers each call with a promise: one
 * per frame is the allocation a flood must not buy.)
 */

/** A token bucket: `capacity` tokens, refilled at `perSecond`; `take(n)` answers whether it had them. */
export class TokenBucket {
  private tokens: number;
  private refilledAt: number;

  constructor(
    readonly capacity: number,
    readonly perSecond: number,
    private readonly now: () => number = Date.now,
  ) {
    this.tokens = capacity;
    this.refilledAt = now();
  }

  take(n = 1): boolean {
    const now = this.now();
    this.tokens = Math.min(this.capacity, this.tokens + ((now - this.refilledAt) / 1000) * this.perSecond);
    this.refilledAt = now;
    if (this.tokens < n) return false;
    this.tokens -= n;
    return true;
  }
}

/** Frames (text and binary) a stream may send a second, with a burst of twice that. */
export const FRAMES_PER_SECOND = 200;
/** Caller audio: PCM16 mono 16 kHz is 32 000 bytes a second; a client's clock may run a little fast. */
export const AUDIO_BYTES_PER_SECOND = 32_000 * 1.05;
/** The audio a client may send ahead of real time (a reconnect's backlog, jitter): two seconds. */
export const AUDIO_BURST_BYTES = 64_000;
/** `error` events a stream is sent a second (burst 10); the rest are counted, not sent. */
export const ERROR_NOTICES_PER_SECOND = 5;
/**
 * A stream that has had this many frames dropped or refused (over its budgets, or invalid) within
 * ABUSE_WINDOW_MS is closed: 1008, "policy violation".
 */
export const ABUSE_FRAMES = 1000;
export const ABUSE_WINDOW_MS = 10_000;

export type FrameVerdict = 'take' | 'drop' | 'close';

/**
 * One stream's budgets. `frame()` is asked for every frame before anything else is done with it;
 * `audio(bytes)` for each audio frame that passed; `notice()` before an `error` event is sent;
 * `refused()` for a frame that was invalid. Dropped and refused frames count towards closing the
 * stream for abuse.
 */
export class StreamBudget {
  private readonly frames: TokenBucket;
  private readonly audioBytes: TokenBucket;
  private readonly notices: TokenBucket;
  private badSince = 0;
  private bad = 0;
  private lastDropAt = Number.NEGATIVE_INFINITY;
  /** Error events not sent (over the notice budget): said in the stream's close log line. */
  suppressedNotices = 0;

  constructor(private readonly now: () => number = Date.now) {
    this.frames = new TokenBucket(FRAMES_PER_SECOND * 2, FRAMES_PER_SECOND, now);
    this.audioBytes = new TokenBucket(AUDIO_BURST_BYTES, AUDIO_BYTES_PER_SECOND, now);
    this.notices = new TokenBucket(ERROR_NOTICES_PER_SECOND * 2, ERROR_NOTICES_PER_SECOND, now);
  }

  /** A frame arrived: taken, dropped (over the frame budget), or the stream is to close (abuse). */
  frame(): FrameVerdict {
    if (this.frames.take()) return 'take';
    return this.refused();
  }

  /** An audio frame of `bytes` that passed `frame()`: within real time plus the burst? */
  audio(bytes: number): FrameVerdict {
    if (this.audioBytes.take(bytes)) return 'take';
    return this.refused();
  }

  /** A frame was dropped or refused: 'close' once they reach ABUSE_FRAMES within ABUSE_WINDOW_MS. */
  refused(): 'drop' | 'close' {
    const now = this.now();
    if (now - this.badSince > ABUSE_WINDOW_MS) {
      this.badSince = now;
      this.bad = 0;
    }
    this.bad++;
    return this.bad >= ABUSE_FRAMES ? 'close' : 'drop';
  }

  /**
   * Should a dropped frame draw a RATE_LIMITED notice? Once, then not again until the stream has gone
   * ABUSE_WINDOW_MS without a drop: a client over its budget hears it once, not once a frame.
   */
  dropNotice(): boolean {
    const now = this.now();
    const say = now - this.lastDropAt > ABUSE_WINDOW_MS;
    this.lastDropAt = now;
    return say;
  }

  /** May an `error` event be sent now? (When not, it is counted in `suppressedNotices`.) */
  notice(): boolean {
    if (this.notices.take()) return true;
    this.suppressedNotices++;
    return false;
  }
}

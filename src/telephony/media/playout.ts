/** Reply audio goes to the carrier at most this far ahead of its playback (issue 39: never more than 2 s). */
export const PLAYOUT_LEAD_MS = 2000;
/** A phone frame: 20 ms of μ-law at 8 kHz. */
const FRAME_MS = 20;

/** What the playout sends on the carrier's stream, in order. */
export interface PlayoutSink {
  /** A frame, and when the carrier will play it (wall clock, ms). */
  media(frame: Uint8Array, playsAt: number): void;
  mark(name: string): void;
}

type Queued = { kind: 'media'; frame: Uint8Array } | { kind: 'mark'; name: string };

/**
 * The agent's audio on its way to a phone carrier (docs/telephony.md "Audio on a phone line"): 20 ms
 * frames and marks, in order, sent a little ahead of their playback at the carrier and never more
 * than `leadMs` of audio unplayed, so that a barge-in's `clear` has little to drop and the carrier's
 * buffer never holds a whole reply. The carrier plays in real time from the first frame it gets;
 * `playedBy` reckons when what was sent will have played.
 */
export class CarrierPlayout {
  private readonly queue: Queued[] = [];
  /** When every frame sent so far will have played at the carrier (wall clock, ms). */
  private playedBy = 0;
  private timer?: NodeJS.Timeout;
  private closed = false;
  /** Frames sent, and the worst lead reached (ms of audio unplayed just after a send). */
  readonly stats = { frames: 0, maxLeadMs: 0 };

  constructor(
    private readonly sink: PlayoutSink,
    private readonly leadMs = PLAYOUT_LEAD_MS,
    private readonly now: () => number = Date.now,
  ) {}

  /** Audio frames to play after what is queued. */
  play(frames: Uint8Array[]): void {
    for (const frame of frames) this.queue.push({ kind: 'media', frame });
    this.pump();
  }

  /** A mark, sent once the audio queued before it has been sent (the carrier echoes it once played). */
  mark(name: string): void {
    this.queue.push({ kind: 'mark', name });
    this.pump();
  }

  /**
   * Drops what has not been sent (a barge-in; the caller then sends the carrier `clear` for what it
   * holds) and forgets the carrier's clock: the names of the marks dropped are returned.
   */
  clear(): string[] {
    const dropped = this.queue.filter((q) => q.kind === 'mark').map((q) => (q as { name: string }).name);
    this.queue.length = 0;
    this.playedBy = 0;
    clearTimeout(this.timer);
    this.timer = undefined;
    return dropped;
  }

  /** Milliseconds of audio sent and not yet played at the carrier, by now. */
  get unplayedMs(): number {
    return Math.max(0, this.playedBy - this.now());
  }

  /** Nothing is queued. */
  get idle(): boolean {
    return this.queue.length === 0;
  }

  close(): void {
    this.closed = true;
    this.clear();
  }

  /** Sends what fits within the lead, then waits until a frame's worth has played. */
  private pump(): void {
    if (this.closed || this.timer) return;
    let now = this.now();
    while (this.queue.length) {
      const next = this.queue[0];
      if (next.kind === 'mark') {
        this.queue.shift();
        this.sink.mark(next.name);
        continue;
      }
      if (this.playedBy - now + FRAME_MS > this.leadMs) break;
      this.queue.shift();
      this.playedBy = Math.max(this.playedBy, now) + FRAME_MS;
      this.sink.media(next.frame, this.playedBy - FRAME_MS);
      this.stats.frames++;
      this.stats.maxLeadMs = Math.max(this.stats.maxLeadMs, this.playedBy - now);
      now = this.now();
    }
    if (!this.queue.length) return;
    const wait = Math.max(1, this.playedBy - now + FRAME_MS - this.leadMs);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.pump();
    }, wait);
  }
}

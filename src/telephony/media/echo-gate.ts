/** One 20 ms slot of the call's clock. */
const SLOT_MS = 20;
/** How far back the agent's voice may come back (a handset's or a trunk's echo path). */
const MAX_ECHO_DELAY_MS = 1000;
/** The stretch of caller audio compared with what the agent said (20 slots: 400 ms). */
const WINDOW_SLOTS = 20;
/** An echo verdict holds this many slots after the last window that matched (200 ms). */
const HOLD_SLOTS = 10;
/** Below this level a slot is silence (dBFS). */
const FLOOR_DB = -70;
/** The caller's audio follows the agent's this closely (Pearson's r of their levels) when it is an echo. */
const ECHO_CORRELATION = 0.6;
/** A window this close to the agent's voice teaches the gate the line's echo path. */
const LEARN_CORRELATION = 0.9;
/** An echo comes back quieter than it went out; at least this much (dB). */
const ECHO_MIN_LOSS_DB = 3;
/** What the agent said is kept this long. */
const KEEP_SLOTS = (MAX_ECHO_DELAY_MS + 400) / SLOT_MS;

/** A frame's level in dBFS (PCM16), floored. */
export function levelDb(pcm: Int16Array | Uint8Array, decode?: (b: Uint8Array) => Int16Array): number {
  const samples = pcm instanceof Int16Array ? pcm : decode!(pcm);
  let sum = 0;
  for (const s of samples) sum += s * s;
  const rms = Math.sqrt(sum / Math.max(1, samples.length));
  return Math.max(FLOOR_DB, 20 * Math.log10(rms / 32768 || 1e-9));
}

function correlation(a: number[], b: number[]): number {
  const n = a.length;
  const ma = a.reduce((x, y) => x + y, 0) / n;
  const mb = b.reduce((x, y) => x + y, 0) / n;
  let cov = 0;
  let va = 0;
  let vb = 0;
  for (let i = 0; i < n; i++) {
    cov += (a[i] - ma) * (b[i] - mb);
    va += (a[i] - ma) ** 2;
    vb += (b[i] - mb) ** 2;
  }
  return va > 0 && vb > 0 ? cov / Math.sqrt(va * vb) : 0;
}

/**
 * Tells the agent's own voice coming back down a phone line from the caller speaking (docs/telephony.md
 * "Line noise and echo"). Many handsets and trunks return what the caller hears, some 100 ms to a
 * second later and 10 dB or more down; to speech detection it is speech. The gate keeps the level of
 * each 20 ms the agent played at the carrier (on the carrier's clock) and of each 20 ms heard from
 * the caller, and calls the caller's last 200 ms an echo when their levels follow the agent's at some
 * delay up to a second (correlation of the level envelopes) and are quieter. A caller talking over
 * the agent is louder than the echo and follows their own words, not the agent's: not an echo. Level
 * envelopes rather than samples: a line's codec and filters change a waveform but not its rhythm,
 * and comparing 10 levels at 50 delays costs nothing next to the call's audio.
 */
export class EchoGate {
  /** The agent's level per slot of the carrier's playback clock. */
  private readonly played = new Map<number, number>();
  /** The caller's recent levels and their slots, oldest first. */
  private readonly heard: { slot: number; db: number }[] = [];
  /** The verdict on the caller's audio heard last. */
  echo = false;
  /** The slot of the last window that matched the agent's voice. */
  private matchedAt = Number.NEGATIVE_INFINITY;
  /** The line's echo path, once learnt: its delay (slots) and loss (dB). */
  private path?: { delay: number; lossDb: number };
  /** Recent close matches, for learning the path. */
  private readonly matches: { delay: number; lossDb: number }[] = [];

  constructor(private readonly now: () => number = Date.now) {}

  /** A frame of the agent's voice that plays at the carrier at `playsAt` (ms, wall clock). */
  agentPlayed(db: number, playsAt: number): void {
    this.played.set(Math.floor(playsAt / SLOT_MS), db);
    // audio is sent up to seconds ahead of its playback: what has played longer ago than an echo takes goes
    const oldest = Math.floor(this.now() / SLOT_MS) - KEEP_SLOTS;
    for (const slot of this.played.keys()) if (slot < oldest) this.played.delete(slot);
  }

  /** A frame of the caller's audio just heard: the verdict is brought up to date. */
  callerHeard(db: number): boolean {
    const slot = Math.floor(this.now() / SLOT_MS);
    this.heard.push({ slot, db });
    if (this.heard.length > WINDOW_SLOTS) this.heard.shift();
    if (this.judge()) this.matchedAt = slot;
    this.echo = slot - this.matchedAt <= HOLD_SLOTS;
    return this.echo;
  }

  /**
   * Whether the caller's last 400 ms follow the agent's voice at the line's echo delay. The delay is
   * learnt from windows that match it closely (r ≥ 0.9) and agree with each other: one line has one
   * echo path, and matching at any of fifty delays would find a caller's speech in the agent's.
   */
  private judge(): boolean {
    if (this.heard.length < WINDOW_SLOTS || this.played.size === 0) return false;
    const caller = this.heard.map((h) => h.db);
    const callerMean = caller.reduce((x, y) => x + y, 0) / caller.length;
    let best = { r: -1, delay: 0, lossDb: 0 };
    for (let delay = 0; delay <= MAX_ECHO_DELAY_MS / SLOT_MS; delay++) {
      const agent = this.heard.map((h) => this.played.get(h.slot - delay) ?? FLOOR_DB);
      const lossDb = agent.reduce((x, y) => x + y, 0) / agent.length - callerMean;
      if (lossDb < ECHO_MIN_LOSS_DB) continue;
      const r = correlation(caller, agent);
      if (this.path && Math.abs(delay - this.path.delay) <= 2 && Math.abs(lossDb - this.path.lossDb) <= 6) {
        if (r >= ECHO_CORRELATION) return true;
      }
      if (r > best.r) best = { r, delay, lossDb };
    }
    if (best.r >= LEARN_CORRELATION) this.learn(best);
    return false;
  }

  /** A close match: once three of the last eight agree on the delay, it is the line's echo path. */
  private learn(match: { delay: number; lossDb: number }): void {
    this.matches.push(match);
    if (this.matches.length > 8) this.matches.shift();
    const agreeing = this.matches.filter((m) => Math.abs(m.delay - match.delay) <= 1);
    if (agreeing.length >= 3) {
      const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)];
      this.path = {
        delay: median(agreeing.map((m) => m.delay)),
        lossDb: median(agreeing.map((m) => m.lossDb)),
      };
    }
  }
}

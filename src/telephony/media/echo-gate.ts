import { waveformMatch } from './waveform-match';

/** One 20 ms slot of the call's clock. */
const SLOT_MS = 20;
/**
 * How far back the agent's voice may come back: a handset's or a trunk's echo path, plus the
 * carrier's playback lag behind the playout's clock. Real paths are tens to a few hundred ms; a
 * longer reach would take a caller repeating the agent's last words (a synthetic caller in the same
 * voice, word for word) for an echo of them.
 */
const MAX_ECHO_DELAY_MS = 600;
/** The stretch of caller audio compared with what the agent said (20 slots: 400 ms). */
const WINDOW_SLOTS = 20;
/** An echo verdict holds this many slots after the last window that matched (200 ms). */
const HOLD_SLOTS = 10;
/** Below this level a slot is silence (dBFS). */
const FLOOR_DB = -70;
/** The caller's audio follows the agent's this closely (Pearson's r of their levels) when it is an echo. */
const ECHO_CORRELATION = 0.6;
/** The caller's last 200 ms are this close a copy of the agent's waveform when they are its echo. */
const WAVEFORM_MATCH = 0.5;
/** The stretch of caller audio whose waveform is compared (10 slots: 200 ms). */
const WAVEFORM_SLOTS = 10;
/** How far either side of the level envelope's delay the waveform is looked for (slots). */
const WAVEFORM_MARGIN_SLOTS = 2;
/** While no echo path is known, waveforms are compared at most once in this many slots (100 ms). */
const WAVEFORM_EVERY_SLOTS = 5;
/** Samples in one slot at 8 kHz. */
const SLOT_SAMPLES = 160;
/** An echo comes back quieter than it went out; at least this much (dB). */
const ECHO_MIN_LOSS_DB = 3;
/** A caller frame this much louder than the echo could be is the caller, whatever came just before (dB). */
const ABOVE_ECHO_DB = 6;
/** The agent is speaking in a slot this loud (dBFS). */
const ACTIVE_DB = -50;
/** What the agent said is kept this long. */
const KEEP_SLOTS = (MAX_ECHO_DELAY_MS + 400) / SLOT_MS;

/**
 * How much quieter the caller is than the agent (dB, the median) over the slots where the agent was
 * loudest (within 10 dB of its peak in the window): a line's noise fills the agent's quiet parts
 * and says nothing of the echo's loss. Undefined when the agent spoke in fewer than 3 slots.
 */
function lossWhileActive(agent: number[], caller: number[]): number | undefined {
  const peak = Math.max(...agent);
  const losses: number[] = [];
  for (let i = 0; i < agent.length; i++)
    if (agent[i]! >= ACTIVE_DB && agent[i]! >= peak - 10) losses.push(agent[i]! - caller[i]!);
  if (losses.length < 3) return undefined;
  return losses.sort((a, b) => a - b)[Math.floor(losses.length / 2)];
}

/** A frame's level in dBFS (PCM16), floored. */
export function levelDb(samples: Int16Array): number {
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
 * second later and 10 dB or more down; to speech detection it is speech. The gate keeps each 20 ms
 * the agent played at the carrier (on the carrier's clock) and each 20 ms heard from the caller
 * (8 kHz PCM16), and calls the caller's audio an echo in two steps:
 * - its level envelope over the last 400 ms follows the agent's at some delay up to 600 ms
 *   (correlation of the envelopes ≥ 0.6) and is at least 3 dB quieter: cheap, ten levels at fifty
 *   delays, and what a line's codec and filters leave intact;
 * - the line's echo path (delay and loss) is known, or the caller's last 200 ms are a copy of the
 *   agent's waveform at about that delay (normalized cross-correlation ≥ 0.5): that match is the
 *   line's echo path from then on. A caller talking over the agent, even to the agent's rhythm, has
 *   their own waveform: envelopes alone once taught the gate a false path from a caller's speech.
 * Once the path is known, each frame is judged at once: while the agent's voice is coming back, a
 * caller frame no louder than that echo could be (the agent's level at the path's delay, less its
 * loss, plus 6 dB) is echo, and a louder one is the caller. The call's speech detection hears
 * silence where the gate says echo (an echo suppressor).
 */
export class EchoGate {
  /** The agent's audio per slot of the carrier's playback clock: its level and samples. */
  private readonly played = new Map<number, { db: number; samples: Int16Array }>();
  /** The caller's recent audio per slot, oldest first. */
  private readonly heard: { slot: number; db: number; samples: Int16Array }[] = [];
  /** The verdict on the caller's audio heard last. */
  echo = false;
  /** The slot of the last window that matched the agent's voice. */
  private matchedAt = Number.NEGATIVE_INFINITY;
  /** The line's echo path, once a waveform confirmed it: its delay (slots) and loss (dB). */
  private path?: { delay: number; lossDb: number };
  /** The slot of the last waveform comparison. */
  private comparedAt = Number.NEGATIVE_INFINITY;

  constructor(private readonly now: () => number = Date.now) {}

  /** A frame of the agent's voice (8 kHz PCM16) that plays at the carrier at `playsAt` (ms, wall clock). */
  agentPlayed(samples: Int16Array, playsAt: number): void {
    this.played.set(Math.floor(playsAt / SLOT_MS), { db: levelDb(samples), samples });
    // audio is sent up to seconds ahead of its playback: what has played longer ago than an echo takes goes
    const oldest = Math.floor(this.now() / SLOT_MS) - KEEP_SLOTS;
    for (const slot of this.played.keys()) if (slot < oldest) this.played.delete(slot);
  }

  /** The carrier was told to drop what it had not played (`clear`): audio scheduled from now on never plays. */
  cleared(): void {
    const now = Math.floor(this.now() / SLOT_MS);
    for (const slot of this.played.keys()) if (slot > now) this.played.delete(slot);
  }

  /**
   * A frame of the caller's audio (8 kHz PCM16) that the carrier heard at `heardAt` (ms, wall clock;
   * the carrier's timestamp from the stream's start when it gives one, so that frames delivered late
   * or in a burst keep their place on the line): the verdict is brought up to date.
   */
  callerHeard(samples: Int16Array, heardAt: number = this.now()): boolean {
    const slot = Math.floor(heardAt / SLOT_MS);
    const db = levelDb(samples);
    this.heard.push({ slot, db, samples });
    if (this.heard.length > WINDOW_SLOTS) this.heard.shift();
    if (this.judge(slot)) this.matchedAt = slot;
    const held = slot - this.matchedAt <= HOLD_SLOTS;
    const agentDb = this.agentOnPathDb(slot);
    // with the line's echo path known, each frame is judged at once against the echo it could hold
    this.echo =
      agentDb === undefined
        ? held
        : db <= agentDb - this.path!.lossDb + ABOVE_ECHO_DB && (held || agentDb >= ACTIVE_DB);
    return this.echo;
  }

  /** The agent's loudest around the echo path's delay before `slot` (undefined: no path known). */
  private agentOnPathDb(slot: number): number | undefined {
    if (!this.path) return undefined;
    let agentDb = FLOOR_DB;
    for (let d = this.path.delay - 2; d <= this.path.delay + 2; d++)
      agentDb = Math.max(agentDb, this.played.get(slot - d)?.db ?? FLOOR_DB);
    return agentDb;
  }

  /** Whether the caller's last 400 ms follow the agent's voice at the line's echo path, or a new one. */
  private judge(slot: number): boolean {
    if (this.heard.length < WINDOW_SLOTS || this.played.size === 0) return false;
    const caller = this.heard.map((h) => h.db);
    let best = { r: -1, delay: 0, lossDb: 0 };
    for (let delay = 0; delay <= MAX_ECHO_DELAY_MS / SLOT_MS; delay++) {
      const agent = this.heard.map((h) => this.played.get(h.slot - delay)?.db ?? FLOOR_DB);
      const lossDb = lossWhileActive(agent, caller);
      if (lossDb === undefined || lossDb < ECHO_MIN_LOSS_DB) continue;
      const r = correlation(caller, agent);
      if (r < ECHO_CORRELATION) continue;
      const onPath =
        this.path && Math.abs(delay - this.path.delay) <= 2 && Math.abs(lossDb - this.path.lossDb) <= 6;
      if (onPath) return true;
      if (r > best.r) best = { r, delay, lossDb };
    }
    if (best.r < ECHO_CORRELATION || slot - this.comparedAt < WAVEFORM_EVERY_SLOTS) return false;
    this.comparedAt = slot;
    if (this.sameWaveform(best.delay) < WAVEFORM_MATCH) return false;
    this.path = { delay: best.delay, lossDb: best.lossDb };
    return true;
  }

  /** How closely the caller's last 200 ms copy the agent's audio played about `delay` slots earlier. */
  private sameWaveform(delay: number): number {
    const recent = this.heard.slice(-WAVEFORM_SLOTS);
    const caller = new Int16Array(recent.length * SLOT_SAMPLES);
    for (const [i, h] of recent.entries()) caller.set(h.samples.subarray(0, SLOT_SAMPLES), i * SLOT_SAMPLES);
    const lastSlot = recent.at(-1)!.slot;
    const firstSlot = lastSlot - recent.length + 1 - delay - WAVEFORM_MARGIN_SLOTS;
    const slots = recent.length + 2 * WAVEFORM_MARGIN_SLOTS;
    const agent = new Int16Array(slots * SLOT_SAMPLES);
    for (let i = 0; i < slots; i++) {
      const played = this.played.get(firstSlot + i);
      if (played) agent.set(played.samples.subarray(0, SLOT_SAMPLES), i * SLOT_SAMPLES);
    }
    return waveformMatch(caller, agent);
  }
}

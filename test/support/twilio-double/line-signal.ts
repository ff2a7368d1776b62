import { mulaw } from 'alawmulaw';
import { TWILIO_FRAME_BYTES } from '../../../src/telephony/twilio/media-messages';

/** What the phone line adds to the caller's audio, as a real handset or trunk may. */
export interface LineOptions {
  /** The agent's own voice coming back: what the caller heard `delayMs` ago, `gainDb` (negative) down. */
  echo?: { delayMs: number; gainDb: number };
  /** Line noise: white noise at this level, dB relative to full scale (-50: a quiet line). */
  noiseDbfs?: number;
}

type Utterance = { pcm: Int16Array; offset: number; done: () => void };

/** A small seeded generator (mulberry32): the same noise on every run. */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/**
 * The caller's side of the line, one 20 ms frame at a time: what the test has the caller say (PCM16,
 * 8 kHz, queued in order), silence when nothing is queued, plus the line's echo of what the caller
 * heard and its noise, clipped and μ-law encoded as the carrier sends it.
 */
export class LineSignal {
  private readonly queue: Utterance[] = [];
  /** What the caller heard, sample by sample (PCM16), as far back as the echo reaches. */
  private heardHistory = new Int16Array(0);
  private readonly echoDelaySamples: number;
  private readonly echoGain: number;
  private readonly noiseAmplitude: number;
  private readonly random = seededRandom(39);

  constructor(options: LineOptions) {
    this.echoDelaySamples = options.echo ? Math.round(options.echo.delayMs * 8) : 0;
    this.echoGain = options.echo ? 10 ** (options.echo.gainDb / 20) : 0;
    // uniform noise on [-a, a] has an RMS of a/√3
    this.noiseAmplitude =
      options.noiseDbfs === undefined ? 0 : 32_768 * 10 ** (options.noiseDbfs / 20) * Math.sqrt(3);
  }

  /** Queues `pcm16` (mono, 8 kHz) after what is queued; resolves once its last sample was framed. */
  say(pcm16: Int16Array): Promise<void> {
    if (pcm16.length === 0) return Promise.resolve();
    return new Promise((done) => this.queue.push({ pcm: pcm16, offset: 0, done }));
  }

  /** The caller's next frame (μ-law), given the frame (μ-law) the caller hears meanwhile. */
  nextFrame(heardFrame: Uint8Array): Uint8Array {
    const mixed = new Float64Array(TWILIO_FRAME_BYTES);
    this.takeSpeech(mixed);
    if (this.echoGain > 0) this.addEcho(mixed, mulaw.decode(heardFrame));
    if (this.noiseAmplitude > 0)
      for (let i = 0; i < mixed.length; i++) mixed[i]! += (this.random() * 2 - 1) * this.noiseAmplitude;
    const pcm = new Int16Array(TWILIO_FRAME_BYTES);
    for (let i = 0; i < pcm.length; i++) pcm[i] = Math.max(-32_768, Math.min(32_767, Math.round(mixed[i]!)));
    return mulaw.encode(pcm);
  }

  /** Ends the line: whoever waits for an utterance to be said stops waiting. */
  close(): void {
    for (const utterance of this.queue.splice(0)) utterance.done();
  }

  private takeSpeech(into: Float64Array): void {
    let filled = 0;
    while (filled < into.length && this.queue.length > 0) {
      const head = this.queue[0]!;
      const take = Math.min(into.length - filled, head.pcm.length - head.offset);
      for (let i = 0; i < take; i++) into[filled + i] = head.pcm[head.offset + i]!;
      filled += take;
      head.offset += take;
      if (head.offset === head.pcm.length) {
        this.queue.shift();
        head.done();
      }
    }
  }

  private addEcho(into: Float64Array, heard: Int16Array): void {
    const history = new Int16Array(this.heardHistory.length + heard.length);
    history.set(this.heardHistory);
    history.set(heard, this.heardHistory.length);
    // sample i of this frame hears back the sample played echoDelaySamples before it
    const frameStart = history.length - heard.length;
    for (let i = 0; i < into.length; i++) {
      const source = frameStart + i - this.echoDelaySamples;
      if (source >= 0) into[i]! += history[source]! * this.echoGain;
    }
    this.heardHistory = history.slice(Math.max(0, history.length - this.echoDelaySamples - heard.length));
  }
}

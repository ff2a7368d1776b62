import type { SpeechPcm } from '../../common/speech';
import { SpeechSegmenter } from '../../voices';
import type { ServerMessage } from './protocol';
import { RealTimePlayback, type ReplyPlayback } from './reply-playback';

/** Reply audio goes out in binary frames of at most this many bytes (about 190 ms at 22 050 Hz). */
export const AUDIO_FRAME_BYTES = 8192;

export interface ReplySpeechOptions {
  turnId: string;
  voiceId: string;
  synthesize(voiceId: string, text: string): Promise<SpeechPcm | undefined>;
  send(message: ServerMessage): void;
  sendAudio(frame: Uint8Array): void;
  /** Aborted when the caller interrupts: nothing more is sent. */
  signal: AbortSignal;
  /** A segment that could not be synthesized (it is skipped; the text was sent as deltas). */
  onError(error: unknown): void;
  /** Where the caller's player is: reckoned in real time unless the transport is told (a phone's marks). */
  playback?: ReplyPlayback;
}

interface SentSegment {
  text: string;
  hold: boolean;
  /** Where its audio starts and ends on the reply's playback clock (ms). */
  startMs: number;
  endMs: number;
  pcm: Int16Array;
  sampleRate: number;
}

/**
 * A reply spoken as it is decided (docs/voice-stream.md "Reply audio"): its text is cut into speakable
 * segments as it arrives (the first one early, at a clause boundary), each segment is synthesized as
 * soon as it is complete (several at once) and sent in order: a `reply.audio` header, then its PCM in
 * binary frames. Audio goes out as soon as it is made, ahead of playback; the reply's playback
 * (src/sessions/stream/reply-playback.ts) tells what the caller has heard when they interrupt.
 */
export class ReplySpeech {
  private readonly segmenter = new SpeechSegmenter();
  private queue: Promise<void> = Promise.resolve();
  private readonly sent: SentSegment[] = [];
  private segmentCount = 0;
  private readonly playback: ReplyPlayback;
  /** The reply was stopped (interrupted): the playback clock stops there. */
  private stopped = false;

  constructor(private readonly opts: ReplySpeechOptions) {
    this.playback = opts.playback ?? new RealTimePlayback();
    opts.signal.addEventListener('abort', () => {
      this.stopped = true;
      this.playback.stop(Date.now());
    });
  }

  /** Reply text as it arrives. */
  push(text: string): void {
    for (const segment of this.segmenter.push(text)) this.enqueue(segment, false);
  }

  /** A hold phrase while a tool runs: spoken in turn, not part of the reply's text. */
  hold(phrase: string): void {
    this.enqueue(phrase, true);
  }

  /** The rest of the text: spoken, then this answers once every segment is sent (or the reply stopped). */
  async finish(): Promise<void> {
    for (const segment of this.segmenter.flush()) this.enqueue(segment, false);
    await this.queue;
  }

  /**
   * The reply's text that the caller has heard by `now`, or by the interruption: every segment whose
   * playback had started (a segment cut short counts, as the caller heard part of it).
   */
  spokenText(now = Date.now()): string {
    if (this.sent.length === 0) return '';
    const heard = this.playback.heardMs(now);
    return this.sent
      .filter((s) => !s.hold && s.startMs <= heard)
      .map((s) => s.text)
      .join(' ');
  }

  /**
   * Answers once the caller's player has played everything sent, or at once when the reply was
   * interrupted: until then the agent is speaking, and the caller can interrupt.
   */
  async played(): Promise<void> {
    if (this.opts.signal.aborted) return;
    await this.playback.played(this.opts.signal);
  }

  /** The reply audio the caller heard (all of it, or up to the interruption), for the turn's recording. */
  audio(): { pcm: Int16Array; sampleRate: number } | undefined {
    const first = this.sent[0];
    if (!first) return undefined;
    const heardMs = this.stopped ? this.playback.heardMs(Date.now()) : Number.POSITIVE_INFINITY;
    const parts = this.sent
      .filter((s) => s.startMs < heardMs)
      .map((s) =>
        s.pcm.subarray(0, Math.round((Math.min(s.endMs, heardMs) - s.startMs) * (s.sampleRate / 1000))),
      );
    const pcm = new Int16Array(parts.reduce((n, p) => n + p.length, 0));
    let offset = 0;
    for (const part of parts) {
      pcm.set(part, offset);
      offset += part.length;
    }
    return { pcm, sampleRate: first.sampleRate };
  }

  private enqueue(text: string, hold: boolean): void {
    if (this.opts.signal.aborted) return;
    // synthesis starts now, while earlier segments are still being made or sent
    const made = this.opts.synthesize(this.opts.voiceId, text).catch((error) => {
      this.opts.onError(error);
      return undefined;
    });
    this.queue = this.queue.then(async () => {
      const audio = await made;
      if (audio && !this.opts.signal.aborted) this.sendSegment(text, hold, audio);
    });
  }

  private sendSegment(text: string, hold: boolean, audio: SpeechPcm): void {
    // a segment starts when the one before it ends, or now if the caller's player has run dry
    const { startMs, endMs } = this.playback.place((audio.pcm.length / audio.sampleRate) * 1000, Date.now());
    this.sent.push({ text, hold, startMs, endMs, pcm: audio.pcm, sampleRate: audio.sampleRate });
    const bytes = new Uint8Array(audio.pcm.buffer, audio.pcm.byteOffset, audio.pcm.byteLength);
    this.opts.send({
      type: 'reply.audio',
      turnId: this.opts.turnId,
      segment: this.segmentCount++,
      text,
      hold,
      format: { encoding: 'pcm_s16le', sampleRate: audio.sampleRate, channels: 1 },
      bytes: bytes.byteLength,
    });
    for (let offset = 0; offset < bytes.byteLength; offset += AUDIO_FRAME_BYTES) {
      this.opts.sendAudio(bytes.subarray(offset, Math.min(offset + AUDIO_FRAME_BYTES, bytes.byteLength)));
    }
  }
}

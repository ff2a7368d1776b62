import { concatSamples } from '../../common/pcm';
import type { SpeechPcmStream } from '../../common/speech';
import { resamplePcm16 } from '../../outbound/wav';
import { SpeechSegmenter } from '../../voices';
import type { ServerMessage } from './protocol';
import { RealTimePlayback, type ReplyPlayback } from './reply-playback';

/** Reply audio goes out in binary frames of at most this many bytes (about 190 ms at 22 050 Hz). */
export const AUDIO_FRAME_BYTES = 8192;

export interface ReplySpeechOptions {
  turnId: string;
  voiceId: string;
  /** A segment's speech as it is made (ctx.speech.streamPcm). */
  synthesize(voiceId: string, text: string): Promise<SpeechPcmStream | undefined>;
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
  /** Its samples, as they were sent. */
  parts: Int16Array[];
  sampleRate: number;
}

/**
 * A reply spoken as it is decided (docs/voice-stream.md "Reply audio"): its text is cut into speakable
 * segments as it arrives (the first one early, at a clause boundary), each segment is synthesized as
 * soon as it is complete (several at once) and sent in order: a `reply.audio` header, its PCM in
 * binary frames, then `reply.audio.done`. Audio goes out as soon as it is made, ahead of playback (a
 * voice that streams, from its first samples: `bytes` is then null in the header); the reply's playback
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

  /**
   * A sound (`press_digits`' tones), played after what was said so far: the text waiting for its
   * segment's end is spoken first. Not part of the reply's text.
   */
  sound(pcm: Int16Array, sampleRate: number): void {
    for (const segment of this.segmenter.flush()) this.enqueue(segment, false);
    if (this.opts.signal.aborted) return;
    const made: SpeechPcmStream = {
      sampleRate,
      length: pcm.length,
      chunks: async function* () {
        yield pcm;
      },
    };
    this.queue = this.queue.then(() =>
      this.opts.signal.aborted ? undefined : this.sendSegment('', true, made).catch(this.opts.onError),
    );
  }

  /** Answers once what was said so far has been sent and has played (or the reply was interrupted). */
  async drain(): Promise<void> {
    for (const segment of this.segmenter.flush()) this.enqueue(segment, false);
    await this.queue;
    await this.played();
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
      .map((s) => {
        const heard = concatSamples(s.parts).subarray(
          0,
          Math.round((Math.min(s.endMs, heardMs) - s.startMs) * (s.sampleRate / 1000)),
        );
        // a sound at its own rate (tones) joins the reply's speech at the speech's
        return s.sampleRate === first.sampleRate
          ? heard
          : resamplePcm16(heard, s.sampleRate, first.sampleRate);
      });
    return { pcm: concatSamples(parts), sampleRate: first.sampleRate };
  }

  private enqueue(text: string, hold: boolean): void {
    if (this.opts.signal.aborted) return;
    // synthesis starts now, while earlier segments are still being made or sent
    const made = this.opts.synthesize(this.opts.voiceId, text).catch((error) => {
      this.opts.onError(error);
      return undefined;
    });
    this.queue = this.queue.then(async () => {
      const speech = await made;
      if (speech && !this.opts.signal.aborted)
        await this.sendSegment(text, hold, speech).catch((error) => this.opts.onError(error));
    });
  }

  /**
   * One segment, as its speech comes: the header with its first samples, each chunk placed on the
   * playback clock and sent in frames, then `reply.audio.done` with the bytes sent (also when the
   * speech failed part-way: what came is what plays). Speech with no samples is an empty segment.
   */
  private async sendSegment(text: string, hold: boolean, speech: SpeechPcmStream): Promise<void> {
    const { sampleRate } = speech;
    const index = this.segmentCount++;
    let segment: SentSegment | undefined;
    let bytes = 0;
    const open = (durationMs: number) => {
      segment = { text, hold, ...this.playback.place(durationMs, Date.now()), parts: [], sampleRate };
      this.sent.push(segment);
      this.opts.send({
        type: 'reply.audio',
        turnId: this.opts.turnId,
        segment: index,
        text,
        hold,
        format: { encoding: 'pcm_s16le', sampleRate, channels: 1 },
        bytes: speech.length === undefined ? null : speech.length * 2,
      });
    };
    try {
      for await (const pcm of speech.chunks()) {
        if (this.opts.signal.aborted) return;
        const durationMs = (pcm.length / sampleRate) * 1000;
        if (!segment) open(durationMs);
        else segment.endMs = this.playback.extend(durationMs, Date.now()).endMs;
        segment!.parts.push(pcm);
        this.sendFrames(pcm);
        bytes += pcm.byteLength;
      }
    } finally {
      if (!this.opts.signal.aborted) {
        if (!segment) open(0);
        this.opts.send({ type: 'reply.audio.done', turnId: this.opts.turnId, segment: index, bytes });
      }
    }
  }

  private sendFrames(pcm: Int16Array): void {
    const bytes = new Uint8Array(pcm.buffer, pcm.byteOffset, pcm.byteLength);
    for (let offset = 0; offset < bytes.byteLength; offset += AUDIO_FRAME_BYTES) {
      this.opts.sendAudio(bytes.subarray(offset, Math.min(offset + AUDIO_FRAME_BYTES, bytes.byteLength)));
    }
  }
}

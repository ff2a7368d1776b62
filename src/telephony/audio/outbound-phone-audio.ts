import { encodeMulaw, MULAW_SILENCE, PHONE_FRAME_BYTES, PHONE_LINE_AUDIO } from './g711';
import { SincResampler } from './sinc-resampler';

/**
 * The agent's side of a phone call, as the carrier takes it: reply audio (PCM16 mono at the voice's
 * rate: 22 050 Hz from eSpeak NG, 24 000 Hz from an OpenAI-compatible provider, any rate up to
 * 192 kHz) → μ-law 8 kHz in exact 20 ms frames of 160 bytes. Resampling down is anti-aliased (the
 * sinc filter removes everything above 4 kHz before the rate drops, where a decimator would fold it
 * back into the voice). What does not fill a frame waits for the next push; flush() ends a stretch
 * of audio with a last frame padded with μ-law silence. One per call and reply rate: make it when
 * the stream starts, dispose() it at the end.
 */
export class OutboundPhoneAudio {
  /** μ-law bytes made but not yet a whole frame (fewer than PHONE_FRAME_BYTES). */
  private held = new Uint8Array(0);

  private constructor(private readonly resampler: SincResampler) {}

  /** A converter for reply audio at `sampleRate` Hz. */
  static async create(sampleRate: number): Promise<OutboundPhoneAudio> {
    return new OutboundPhoneAudio(await SincResampler.create(sampleRate, PHONE_LINE_AUDIO.sampleRate));
  }

  /** The reply audio's rate this converter takes. */
  get sampleRate(): number {
    return this.resampler.fromRate;
  }

  /** μ-law bytes waiting for the rest of their frame. */
  get heldBytes(): number {
    return this.held.length;
  }

  /**
   * Reply audio in (any length) → every whole 160-byte μ-law frame it completes, in order (views of
   * one new buffer: `frame.toString('base64')` is a media message's payload).
   */
  push(pcm: Int16Array): Buffer[] {
    return this.frames(encodeMulaw(this.resampler.push(pcm)), false);
  }

  /**
   * The end of a stretch of audio (a reply segment, before its `mark`): the filter's tail out, and the
   * last partial frame padded to 160 bytes with μ-law silence. Nothing is held afterwards.
   */
  flush(): Buffer[] {
    return this.frames(encodeMulaw(this.resampler.drain()), true);
  }

  /** Drops what is held, unsent (barge-in: the carrier was told to `clear`); the filter starts afresh. */
  clear(): void {
    this.held = new Uint8Array(0);
    this.resampler.reset();
  }

  /** Frees the resampler. Idempotent; pushing afterwards throws. */
  dispose(): void {
    this.held = new Uint8Array(0);
    this.resampler.dispose();
  }

  /** `mulaw` after what was held, cut into whole frames; the rest is held, or padded into a last frame. */
  private frames(mulaw: Uint8Array, padLast: boolean): Buffer[] {
    const stream = Buffer.concat([this.held, mulaw]);
    const round = padLast ? Math.ceil : Math.floor;
    const frameCount = round(stream.length / PHONE_FRAME_BYTES);
    const bytes = Buffer.alloc(frameCount * PHONE_FRAME_BYTES, MULAW_SILENCE);
    const sent = Math.min(stream.length, bytes.length);
    bytes.set(stream.subarray(0, sent));
    this.held = new Uint8Array(stream.subarray(sent)); // a copy: the rest of `stream` is not kept
    const out: Buffer[] = [];
    for (let offset = 0; offset < bytes.length; offset += PHONE_FRAME_BYTES) {
      out.push(bytes.subarray(offset, offset + PHONE_FRAME_BYTES));
    }
    return out;
  }
}

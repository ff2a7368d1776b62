import { decodeMulaw, PHONE_LINE_AUDIO } from './g711';
import { SincResampler } from './sinc-resampler';

/**
 * The rate the speech engine hears callers at: CALLER_AUDIO's 16 kHz (src/sessions/stream/protocol.ts,
 * which this area does not reach into; the unit test holds the two equal).
 */
export const ENGINE_CALLER_RATE = 16_000;

/**
 * The caller's side of a phone call, as the speech engine hears it: the carrier's μ-law 8 kHz media
 * frames → PCM16 mono 16 kHz (ENGINE_CALLER_RATE), one frame at a time, through one resampler kept
 * for the whole call (its filter spans frame edges, so 20 ms frames join without clicks). Upsampling adds no
 * band the line did not carry: above 4 kHz the output is the filter's stopband, not images of speech.
 * One per call: make it when the stream starts (creation takes milliseconds), dispose() it at the end.
 */
export class InboundPhoneAudio {
  private constructor(private readonly resampler: SincResampler) {}

  static async create(): Promise<InboundPhoneAudio> {
    return new InboundPhoneAudio(await SincResampler.create(PHONE_LINE_AUDIO.sampleRate, ENGINE_CALLER_RATE));
  }

  /**
   * One media frame's μ-law bytes (normally 160: 20 ms) → the caller's PCM16 16 kHz samples made so
   * far (320 a frame once the filter has filled; the first frame gives a few ms less, its delay).
   */
  push(mulaw: Uint8Array): Int16Array {
    return this.pushPcm(decodeMulaw(mulaw));
  }

  /** The same frame already decoded (PCM16, 8 kHz) → PCM16 16 kHz samples. */
  pushPcm(pcm8k: Int16Array): Int16Array {
    return this.resampler.push(pcm8k);
  }

  /** A media message's `payload` (base64 μ-law, as Twilio and Telnyx send it) → PCM16 16 kHz samples. */
  pushBase64(payload: string): Int16Array {
    return this.push(Buffer.from(payload, 'base64'));
  }

  /** The filter's last few ms (the caller hung up or the stream stopped); it then starts afresh. */
  flush(): Int16Array {
    return this.resampler.drain();
  }

  /** Frees the resampler. Idempotent; pushing afterwards throws. */
  dispose(): void {
    this.resampler.dispose();
  }
}

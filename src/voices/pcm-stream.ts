import { concatSamples } from '../common/pcm';
import type { SpeechPcm, SpeechPcmStream } from '../common/speech';

/**
 * PCM16 LE bytes, as a provider streams them, as samples: each chunk's whole samples at once, an odd
 * byte carried to the next chunk. An answer that ends on an odd byte throws `oddBytes(total)`.
 */
export async function* pcmSamples(
  body: AsyncIterable<Uint8Array>,
  oddBytes: (total: number) => Error,
): AsyncGenerator<Int16Array> {
  let carry: number | undefined;
  let total = 0;
  for await (const chunk of body) {
    if (chunk.byteLength === 0) continue;
    total += chunk.byteLength;
    const bytes = carry === undefined ? chunk : withCarry(carry, chunk);
    const whole = bytes.byteLength - (bytes.byteLength % 2);
    carry = whole < bytes.byteLength ? bytes[whole] : undefined;
    if (whole === 0) continue;
    const view = new DataView(bytes.buffer, bytes.byteOffset, whole);
    const samples = new Int16Array(whole / 2);
    for (let i = 0; i < samples.length; i++) samples[i] = view.getInt16(i * 2, true);
    yield samples;
  }
  if (carry !== undefined) throw oddBytes(total);
}

function withCarry(carry: number, chunk: Uint8Array): Uint8Array {
  const bytes = new Uint8Array(chunk.byteLength + 1);
  bytes[0] = carry;
  bytes.set(chunk, 1);
  return bytes;
}

/** Whole speech as a stream of one chunk (a catalog voice, a cache hit, a provider that answers whole). */
export function wholeSpeechStream(speech: SpeechPcm): SpeechPcmStream {
  const { pcm, sampleRate } = speech;
  return {
    sampleRate,
    length: pcm.length,
    async *chunks() {
      if (pcm.length > 0) yield pcm;
    },
  };
}

/**
 * A stream read ahead: `source` is read at once, as fast as it comes, into a buffer that `chunks`
 * hands out in order (a segment made while the one before it is still being sent is ready when its
 * turn comes, and its provider is never held back). A failure of the source is thrown by `chunks`
 * after what came before it; `done` answers with all the samples once the source has ended.
 */
export class ReadAheadPcm implements SpeechPcmStream {
  private readonly buffered: Int16Array[] = [];
  private ended = false;
  private failure: unknown;
  private wake?: () => void;
  /** All the samples, once the source has ended (rejects when it failed). */
  readonly done: Promise<Int16Array>;

  constructor(
    readonly sampleRate: number,
    source: AsyncIterable<Int16Array>,
  ) {
    this.done = this.read(source);
    this.done.catch(() => undefined);
  }

  async *chunks(): AsyncGenerator<Int16Array> {
    for (let next = 0; ; ) {
      if (next < this.buffered.length) {
        yield this.buffered[next++]!;
        continue;
      }
      if (this.failure !== undefined) throw this.failure;
      if (this.ended) return;
      await new Promise<void>((resolve) => {
        this.wake = resolve;
      });
    }
  }

  private async read(source: AsyncIterable<Int16Array>): Promise<Int16Array> {
    try {
      for await (const chunk of source) {
        this.buffered.push(chunk);
        this.wake?.();
      }
    } catch (error) {
      this.failure = error ?? new Error('The speech stream failed');
      this.wake?.();
      throw error;
    }
    this.ended = true;
    this.wake?.();
    return concatSamples(this.buffered);
  }
}

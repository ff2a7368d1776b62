/**
 * WAV (RIFF, PCM) encoding and decoding, and the sample conversions caller audio needs on its way to
 * a speech-to-text provider: the VAD's Float32 utterances to PCM16, and PCM16 from one rate to another.
 */

/** Decoded PCM WAV audio: `samples` interleaved when `channels` is more than one. */
export interface WavAudio {
  sampleRate: number;
  channels: number;
  bitsPerSample: number;
  samples: Int16Array;
}

/** Bytes that are not a PCM16 WAV file (or not one `readWav` reads). */
export class WavFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WavFormatError';
  }
}

const HEADER_BYTES = 44;
const FORMAT_PCM = 1;

/**
 * A PCM16 little-endian WAV file of `pcm` at `sampleRate` Hz (`channels` interleaved, mono by
 * default): the header `wavHeader` writes, then the samples.
 */
export function pcm16ToWav(pcm: Int16Array, sampleRate: number, channels = 1): Uint8Array {
  if (!Number.isInteger(channels) || channels < 1 || pcm.length % channels !== 0)
    throw new RangeError(`${pcm.length} samples are not ${channels} interleaved channels`);
  const bytes = new Uint8Array(HEADER_BYTES + pcm.length * 2);
  bytes.set(wavHeader(pcm.length * 2, sampleRate, channels));
  const view = new DataView(bytes.buffer);
  for (let i = 0; i < pcm.length; i++) view.setInt16(HEADER_BYTES + i * 2, pcm[i], true);
  return bytes;
}

/**
 * The standard 44-byte RIFF header of a PCM16 WAV file whose samples take `dataBytes` (`RIFF`,
 * `WAVE`, a 16-byte `fmt ` chunk, `data`): written first when the samples are streamed after it.
 */
export function wavHeader(dataBytes: number, sampleRate: number, channels = 1): Uint8Array {
  if (!Number.isInteger(sampleRate) || sampleRate <= 0)
    throw new RangeError(`sample rate must be a positive integer, not ${sampleRate}`);
  const bytes = new Uint8Array(HEADER_BYTES);
  const view = new DataView(bytes.buffer);
  const ascii = (offset: number, text: string) => {
    for (let i = 0; i < text.length; i++) bytes[offset + i] = text.charCodeAt(i);
  };
  ascii(0, 'RIFF');
  view.setUint32(4, HEADER_BYTES - 8 + dataBytes, true);
  ascii(8, 'WAVE');
  ascii(12, 'fmt ');
  view.setUint32(16, 16, true); // fmt chunk size
  view.setUint16(20, FORMAT_PCM, true);
  view.setUint16(22, channels, true);
  view.setUint32(24, sampleRate, true);
  view.setUint32(28, sampleRate * 2 * channels, true); // bytes per second
  view.setUint16(32, 2 * channels, true); // bytes per frame
  view.setUint16(34, 16, true); // bits per sample
  ascii(36, 'data');
  view.setUint32(40, dataBytes, true);
  return bytes;
}

/**
 * Reads a PCM16 WAV file: its format and its samples. Chunks other than `fmt ` and `data` (`LIST`,
 * `fact`) are skipped; a file that is not RIFF/WAVE, not PCM, not 16-bit, or whose chunks run past
 * its end throws WavFormatError.
 */
export function readWav(bytes: Uint8Array): WavAudio {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const tag = (offset: number) => String.fromCharCode(...bytes.subarray(offset, offset + 4));
  if (bytes.length < 12 || tag(0) !== 'RIFF' || tag(8) !== 'WAVE')
    throw new WavFormatError('not a RIFF/WAVE file');
  let format: Omit<WavAudio, 'samples'> | undefined;
  let offset = 12;
  while (offset + 8 <= bytes.length) {
    const id = tag(offset);
    const size = view.getUint32(offset + 4, true);
    const body = offset + 8;
    if (body + size > bytes.length) throw new WavFormatError(`the ${id} chunk runs past the end of the file`);
    if (id === 'fmt ') {
      if (size < 16) throw new WavFormatError('the fmt chunk is too short');
      if (view.getUint16(body, true) !== FORMAT_PCM) throw new WavFormatError('not PCM audio');
      format = {
        channels: view.getUint16(body + 2, true),
        sampleRate: view.getUint32(body + 4, true),
        bitsPerSample: view.getUint16(body + 14, true),
      };
      if (format.bitsPerSample !== 16)
        throw new WavFormatError(`${format.bitsPerSample}-bit audio; only 16-bit is read`);
    } else if (id === 'data') {
      if (!format) throw new WavFormatError('the data chunk comes before the fmt chunk');
      const samples = new Int16Array(Math.floor(size / 2));
      for (let i = 0; i < samples.length; i++) samples[i] = view.getInt16(body + i * 2, true);
      return { ...format, samples };
    }
    offset = body + size + (size % 2); // chunks are padded to an even length
  }
  throw new WavFormatError(format ? 'no data chunk' : 'no fmt chunk');
}

/** Float samples (-1..1, as the VAD yields them) as PCM16, clamped: values outside -1..1 saturate. */
export function float32ToPcm16(samples: Float32Array): Int16Array {
  const pcm = new Int16Array(samples.length);
  for (let i = 0; i < samples.length; i++) {
    const x = Math.max(-1, Math.min(1, samples[i] || 0)); // NaN becomes silence
    pcm[i] = Math.round(x < 0 ? x * 32_768 : x * 32_767);
  }
  return pcm;
}

/**
 * `pcm` from `fromRate` to `toRate` Hz by linear interpolation: cheap, and good enough for speech
 * recognition (no low-pass filter, so downsampling lets some energy above the new Nyquist fold back).
 * The result lasts as long as the input: `round(length × toRate / fromRate)` samples.
 */
export function resamplePcm16(pcm: Int16Array, fromRate: number, toRate: number): Int16Array {
  if (!(fromRate > 0 && toRate > 0)) throw new RangeError('sample rates must be positive');
  if (fromRate === toRate) return pcm.slice();
  const out = new Int16Array(Math.round((pcm.length * toRate) / fromRate));
  const step = fromRate / toRate;
  const last = pcm.length - 1;
  for (let i = 0; i < out.length; i++) {
    const position = i * step;
    const left = Math.min(Math.floor(position), last);
    const right = Math.min(left + 1, last);
    const fraction = position - Math.floor(position);
    out[i] = Math.round(pcm[left] + (pcm[right] - pcm[left]) * fraction);
  }
  return out;
}

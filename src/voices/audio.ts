/**
 * Just enough of the MP3 and WAV formats to tell which one a provider answered and how long it
 * plays: WAV from its `fmt ` and `data` chunks, MP3 by walking its frames (and the LAME/Xing tag's
 * encoder delay and padding when present).
 */

export type AudioFormat = 'mp3' | 'wav';

export const AUDIO_MIME: Record<AudioFormat, string> = { mp3: 'audio/mpeg', wav: 'audio/wav' };

export class AudioFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AudioFormatError';
  }
}

const ascii = (bytes: Uint8Array, at: number, length: number) =>
  String.fromCharCode(...bytes.subarray(at, at + length));

/** `wav` for a RIFF/WAVE file, `mp3` for an ID3 tag or an MPEG audio frame header, else undefined. */
export function sniffAudio(bytes: Uint8Array): AudioFormat | undefined {
  if (bytes.length >= 12 && ascii(bytes, 0, 4) === 'RIFF' && ascii(bytes, 8, 4) === 'WAVE') return 'wav';
  if (bytes.length >= 3 && ascii(bytes, 0, 3) === 'ID3') return 'mp3';
  if (bytes.length >= 4 && parseFrameHeader(bytes, 0)) return 'mp3';
  return undefined;
}

export interface WavInfo {
  sampleRate: number;
  channels: number;
  bitsPerSample: number;
  /** Sample frames (one sample per channel). */
  frames: number;
  duration: number;
}

/** Reads a WAV file's format and length. A data chunk declared longer than the file (streamed WAV) counts what is there. */
export function parseWav(bytes: Uint8Array): WavInfo {
  if (sniffAudio(bytes) !== 'wav') throw new AudioFormatError('not a RIFF/WAVE file');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let format: { channels: number; sampleRate: number; blockAlign: number; bitsPerSample: number } | undefined;
  let offset = 12;
  while (offset + 8 <= bytes.length) {
    const id = ascii(bytes, offset, 4);
    const size = view.getUint32(offset + 4, true);
    const body = offset + 8;
    if (id === 'fmt ') {
      if (size < 16 || body + 16 > bytes.length) throw new AudioFormatError('truncated fmt chunk');
      format = {
        channels: view.getUint16(body + 2, true),
        sampleRate: view.getUint32(body + 4, true),
        blockAlign: view.getUint16(body + 12, true),
        bitsPerSample: view.getUint16(body + 14, true),
      };
    } else if (id === 'data') {
      if (!format) throw new AudioFormatError('data chunk before fmt chunk');
      if (format.sampleRate === 0 || format.blockAlign === 0) throw new AudioFormatError('bad fmt chunk');
      const available = Math.min(size, bytes.length - body);
      const frames = Math.floor(available / format.blockAlign);
      return {
        sampleRate: format.sampleRate,
        channels: format.channels,
        bitsPerSample: format.bitsPerSample,
        frames,
        duration: frames / format.sampleRate,
      };
    }
    offset = body + size + (size % 2); // chunks are word-aligned
  }
  throw new AudioFormatError('no data chunk');
}

// bit rates (kbit/s) by [MPEG-1 ? 0 : 1][layer 1..3][index]
const BITRATES: number[][][] = [
  [
    [],
    [0, 32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448],
    [0, 32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384],
    [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320],
  ],
  [
    [],
    [0, 32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256],
    [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
    [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
  ],
];
const SAMPLE_RATES: Record<number, number[]> = {
  3: [44100, 48000, 32000], // MPEG-1
  2: [22050, 24000, 16000], // MPEG-2
  0: [11025, 12000, 8000], // MPEG-2.5
};

export interface Mp3Frame {
  mpeg1: boolean;
  layer: 1 | 2 | 3;
  sampleRate: number;
  channels: 1 | 2;
  samples: number;
  length: number;
}

/** The MPEG audio frame header at `at`, or undefined when there is none (free-format frames are not supported). */
export function parseFrameHeader(bytes: Uint8Array, at: number): Mp3Frame | undefined {
  if (at + 4 > bytes.length) return undefined;
  const b1 = bytes[at + 1];
  const b2 = bytes[at + 2];
  if (bytes[at] !== 0xff || (b1 & 0xe0) !== 0xe0) return undefined;
  const version = (b1 >> 3) & 3; // 0: 2.5, 1: reserved, 2: MPEG-2, 3: MPEG-1
  const layerBits = (b1 >> 1) & 3; // 1: layer III, 2: layer II, 3: layer I
  const bitrateIndex = b2 >> 4;
  const rateIndex = (b2 >> 2) & 3;
  if (version === 1 || layerBits === 0 || bitrateIndex === 0 || bitrateIndex === 15 || rateIndex === 3) {
    return undefined;
  }
  const mpeg1 = version === 3;
  const layer = (4 - layerBits) as 1 | 2 | 3;
  const bitrate = BITRATES[mpeg1 ? 0 : 1][layer][bitrateIndex] * 1000;
  const sampleRate = SAMPLE_RATES[version][rateIndex];
  const padding = (b2 >> 1) & 1;
  const channels = ((bytes[at + 3] >> 6) & 3) === 3 ? 1 : 2;
  let samples: number;
  let length: number;
  if (layer === 1) {
    samples = 384;
    length = (Math.floor((12 * bitrate) / sampleRate) + padding) * 4;
  } else {
    samples = layer === 3 && !mpeg1 ? 576 : 1152;
    length = Math.floor(((samples / 8) * bitrate) / sampleRate) + padding;
  }
  return { mpeg1, layer, sampleRate, channels, samples, length };
}

export interface Mp3Info {
  sampleRate: number;
  channels: number;
  /** Audio frames (a Xing/Info frame is not counted). */
  frames: number;
  /** Samples per channel after removing the encoder delay and padding a LAME tag declares. */
  samples: number;
  duration: number;
}

/** Size of an ID3v2 tag at the start (header, body and footer), else 0. */
function id3v2Size(bytes: Uint8Array): number {
  if (bytes.length < 10 || ascii(bytes, 0, 3) !== 'ID3') return 0;
  const size =
    ((bytes[6] & 0x7f) << 21) | ((bytes[7] & 0x7f) << 14) | ((bytes[8] & 0x7f) << 7) | (bytes[9] & 0x7f);
  const footer = bytes[5] & 0x10 ? 10 : 0;
  return 10 + size + footer;
}

/** Encoder delay and padding from a Xing/Info frame's LAME extension, when `frame` is one. */
function infoTag(
  bytes: Uint8Array,
  at: number,
  frame: Mp3Frame,
): { delay: number; padding: number } | undefined {
  if (frame.layer !== 3) return undefined;
  const sideInfo = frame.mpeg1 ? (frame.channels === 1 ? 17 : 32) : frame.channels === 1 ? 9 : 17;
  const tag = at + 4 + sideInfo;
  if (tag + 8 > bytes.length) return undefined;
  const id = ascii(bytes, tag, 4);
  if (id !== 'Xing' && id !== 'Info') return undefined;
  const lame = tag + 120; // after the id, flags, frame count, byte count, TOC and quality fields
  if (lame + 24 <= at + frame.length && /^(LAME|Lavf|Lavc|GOGO)/.test(ascii(bytes, lame, 4))) {
    const d = lame + 21;
    return {
      delay: (bytes[d] << 4) | (bytes[d + 1] >> 4),
      padding: ((bytes[d + 1] & 0x0f) << 8) | bytes[d + 2],
    };
  }
  return { delay: 0, padding: 0 };
}

/**
 * Walks the frames of an MP3 file. Junk between frames is skipped (a frame must be followed by
 * another, or by the end, to count), a trailing partial frame is ignored.
 */
export function parseMp3(bytes: Uint8Array): Mp3Info {
  let at = id3v2Size(bytes);
  let first: Mp3Frame | undefined;
  let frames = 0;
  let samples = 0;
  let trim = 0;
  while (at + 4 <= bytes.length) {
    const frame = parseFrameHeader(bytes, at);
    const next = frame ? at + frame.length : 0;
    if (frame && next > bytes.length) break; // truncated last frame
    const followed =
      next + 4 > bytes.length ||
      parseFrameHeader(bytes, next) !== undefined ||
      ascii(bytes, next, 3) === 'TAG';
    if (!frame || !followed) {
      at += 1;
      continue;
    }
    if (!first) {
      first = frame;
      const tag = infoTag(bytes, at, frame);
      if (tag) {
        trim = tag.delay + tag.padding;
        at = next;
        continue;
      }
    }
    frames += 1;
    samples += frame.samples;
    at = next;
  }
  if (!first || frames === 0) throw new AudioFormatError('no MPEG audio frames');
  const kept = Math.max(0, samples - trim);
  return {
    sampleRate: first.sampleRate,
    channels: first.channels,
    frames,
    samples: kept,
    duration: kept / first.sampleRate,
  };
}

/** The format and playing time of an MP3 or WAV file. */
export function audioInfo(bytes: Uint8Array): { format: AudioFormat; duration: number } {
  const format = sniffAudio(bytes);
  if (format === 'wav') return { format, duration: parseWav(bytes).duration };
  if (format === 'mp3') return { format, duration: parseMp3(bytes).duration };
  throw new AudioFormatError('neither MP3 nor WAV audio');
}

/** `data:<mime>;base64,…` */
export function dataUrl(format: AudioFormat, bytes: Uint8Array): string {
  return `data:${AUDIO_MIME[format]};base64,${Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64')}`;
}

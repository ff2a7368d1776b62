/**
 * A phone line's audio as the carriers stream it (Twilio's and Telnyx's media streams): G.711 μ-law,
 * 8 kHz, mono, in 20 ms frames of 160 bytes. The codec is alawmulaw's, a port of the ITU-T G.711
 * reference tables (docs/telephony.md "Audio on a phone line"): no hand-written companding here.
 */
import { mulaw } from 'alawmulaw';

/** What a carrier's media stream carries: `audio/x-mulaw`, 8000 Hz, one channel. */
export const PHONE_LINE_AUDIO = { encoding: 'mulaw', sampleRate: 8_000, channels: 1 } as const;
/** A media frame's length: carriers send and expect 20 ms frames. */
export const PHONE_FRAME_MS = 20;
/** A 20 ms frame of μ-law at 8 kHz: one byte a sample. */
export const PHONE_FRAME_BYTES = (PHONE_LINE_AUDIO.sampleRate * PHONE_FRAME_MS) / 1000;
/** μ-law's code for a zero sample (positive zero): a frame of it is silence on the line. */
export const MULAW_SILENCE = 0xff;

/** μ-law bytes → PCM16 samples (G.711 expansion, one sample a byte). */
export function decodeMulaw(bytes: Uint8Array): Int16Array {
  return mulaw.decode(bytes);
}

/** PCM16 samples → μ-law bytes (G.711 compression, one byte a sample). */
export function encodeMulaw(pcm: Int16Array): Uint8Array {
  return mulaw.encode(pcm);
}

/**
 * PCM16 samples as the little-endian bytes the speech engine takes (CALLER_AUDIO): a view, not a
 * copy (Node runs on little-endian machines only: x64 and arm64).
 */
export function pcm16Bytes(pcm: Int16Array): Buffer {
  return Buffer.from(pcm.buffer, pcm.byteOffset, pcm.byteLength);
}

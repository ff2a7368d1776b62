import { ApiError } from '../http/errors';
import { guardedFetch } from '../outbound/fetch';
import { OutboundError, type OutboundPolicy } from '../outbound/http';
import { type AudioFormat, AudioFormatError, audioInfo, sniffAudio } from './audio';

/** An OpenAI-compatible speech endpoint (`POST {baseUrl}/audio/speech`). */
export interface RemoteTtsConfig {
  baseUrl: string;
  apiKey?: string;
  model: string;
  voices: string[];
}

/** The whole exchange, connection to last byte. */
export const REMOTE_TTS_TIMEOUT_MS = 20_000;
/** Audio larger than this is refused (about 40 minutes of 32 kbps MP3; 500 characters need far less). */
export const REMOTE_TTS_MAX_BYTES = 10 * 1024 * 1024;

const upstream = (message: string) => new ApiError(502, 'UPSTREAM_ERROR', message);

/** Reads a response body, refusing it past `cap` bytes. */
async function readCapped(body: ReadableStream<Uint8Array> | null, cap: number): Promise<Uint8Array> {
  if (!body) return new Uint8Array(0);
  const reader = body.getReader();
  const parts: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.length;
    if (total > cap) {
      await reader.cancel().catch(() => undefined);
      throw upstream(`The speech provider answered more than ${cap} bytes`);
    }
    parts.push(value);
  }
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const p of parts) {
    bytes.set(p, offset);
    offset += p.length;
  }
  return bytes;
}

/** The formats asked for, with the Accept header sent for each. */
const ACCEPT = { mp3: 'audio/mpeg, audio/wav', pcm: 'audio/pcm, application/octet-stream' };

/**
 * Speaks `text` with `voice` on the configured endpoint, through the SSRF-guarded outbound fetch
 * (no redirects), within REMOTE_TTS_TIMEOUT_MS and REMOTE_TTS_MAX_BYTES: the answer's bytes and
 * content type. Failures are 502 UPSTREAM_ERROR.
 */
async function requestSpeech(
  tts: RemoteTtsConfig,
  policy: OutboundPolicy,
  request: { voice: string; text: string; format: keyof typeof ACCEPT },
): Promise<{ bytes: Uint8Array; contentType: string }> {
  const { voice, text, format } = request;
  const url = `${tts.baseUrl.replace(/\/+$/, '')}/audio/speech`;
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: ACCEPT[format] };
  if (tts.apiKey) headers.authorization = `Bearer ${tts.apiKey}`;
  const signal = AbortSignal.timeout(REMOTE_TTS_TIMEOUT_MS);
  try {
    const res = await guardedFetch(policy)(url, {
      method: 'POST',
      headers,
      body: JSON.stringify({ model: tts.model, voice, input: text, response_format: format }),
      signal,
    });
    if (res.status < 200 || res.status >= 300) {
      const detail = (await res.text().catch(() => '')).slice(0, 200);
      throw upstream(`The speech provider answered ${res.status}${detail ? `: ${detail}` : ''}`);
    }
    const bytes = await readCapped(res.body as ReadableStream<Uint8Array> | null, REMOTE_TTS_MAX_BYTES);
    return { bytes, contentType: res.headers.get('content-type') ?? '' };
  } catch (error) {
    if (error instanceof ApiError) throw error;
    if (signal.aborted)
      throw upstream(`The speech provider did not answer within ${REMOTE_TTS_TIMEOUT_MS} ms`);
    if (error instanceof OutboundError)
      throw upstream(`The speech provider cannot be reached: ${error.message}`);
    const cause = (error as { cause?: { message?: string } }).cause?.message;
    throw upstream(`The speech provider cannot be reached: ${cause ?? (error as Error).message}`);
  }
}

/**
 * `text` spoken with `voice` on the configured endpoint (requestSpeech). Asks for MP3; accepts MP3 or
 * WAV (told apart by their bytes) and measures the audio itself.
 */
export async function remoteSpeech(
  tts: RemoteTtsConfig,
  policy: OutboundPolicy,
  voice: string,
  text: string,
): Promise<{ format: AudioFormat; bytes: Uint8Array; duration: number }> {
  const { bytes } = await requestSpeech(tts, policy, { voice, text, format: 'mp3' });
  try {
    const { format, duration } = audioInfo(bytes);
    return { format, bytes, duration };
  } catch (error) {
    if (error instanceof AudioFormatError)
      throw upstream(`The speech provider's audio is unusable: ${error.message}`);
    throw error;
  }
}

/** The rate of OpenAI's `pcm` format: 16-bit signed little-endian mono samples, no header. */
export const REMOTE_PCM_SAMPLE_RATE = 24_000;

/**
 * `text` spoken with `voice` on the configured endpoint (requestSpeech) as raw samples: asks for
 * `response_format: "pcm"`, read as OpenAI defines it (REMOTE_PCM_SAMPLE_RATE). An MP3 or WAV answer,
 * or an odd number of bytes, is a 502 UPSTREAM_ERROR.
 */
export async function remoteSpeechPcm(
  tts: RemoteTtsConfig,
  policy: OutboundPolicy,
  voice: string,
  text: string,
): Promise<{ pcm: Int16Array; sampleRate: number }> {
  const { bytes, contentType } = await requestSpeech(tts, policy, { voice, text, format: 'pcm' });
  if (/^audio\/(mpeg|mp3|wav|wave|x-wav)\b/i.test(contentType) || sniffAudio(bytes) === 'wav')
    throw upstream(`The speech provider answered ${contentType || 'WAV'} instead of raw PCM`);
  if (bytes.length % 2 !== 0)
    throw upstream(`The speech provider's raw PCM has an odd number of bytes (${bytes.length})`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const pcm = new Int16Array(bytes.length / 2);
  for (let i = 0; i < pcm.length; i++) pcm[i] = view.getInt16(i * 2, true);
  return { pcm, sampleRate: REMOTE_PCM_SAMPLE_RATE };
}

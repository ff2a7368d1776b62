import { ApiError } from '../http/errors';
import { ANSWER_LIMITS } from '../outbound/answer-limits';
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

/** The whole exchange, connection to last byte, and the most audio read (ANSWER_LIMITS.speech). */
export const REMOTE_TTS_TIMEOUT_MS = ANSWER_LIMITS.speech.timeoutMs;
export const REMOTE_TTS_MAX_BYTES = ANSWER_LIMITS.speech.maxBytes;

const upstream = (message: string) => new ApiError(502, 'UPSTREAM_ERROR', message);

/** The formats asked for, with the Accept header sent for each. */
const ACCEPT = { mp3: 'audio/mpeg, audio/wav', pcm: 'audio/pcm, application/octet-stream' };

/**
 * Speaks `text` with `voice` on the configured endpoint, through the SSRF-guarded outbound fetch
 * (no redirects), within REMOTE_TTS_TIMEOUT_MS and REMOTE_TTS_MAX_BYTES: the answer's bytes and
 * content type. Failures are 502 UPSTREAM_ERROR; audio past the cap is 502 RESPONSE_TOO_LARGE.
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
  try {
    const res = await guardedFetch(policy, ANSWER_LIMITS.speech)(url, {
      method: 'POST',
      headers,
      body: JSON.stringify({ model: tts.model, voice, input: text, response_format: format }),
    });
    if (res.status < 200 || res.status >= 300) {
      const detail = (await res.text().catch(() => '')).slice(0, 200);
      throw upstream(`The speech provider answered ${res.status}${detail ? `: ${detail}` : ''}`);
    }
    const bytes = new Uint8Array(await res.arrayBuffer());
    return { bytes, contentType: res.headers.get('content-type') ?? '' };
  } catch (error) {
    if (error instanceof ApiError) throw error;
    if (error instanceof OutboundError && error.kind === 'too_large')
      throw new ApiError(
        502,
        'RESPONSE_TOO_LARGE',
        `The speech provider answered more than ${REMOTE_TTS_MAX_BYTES} bytes`,
      );
    if (error instanceof OutboundError && error.kind === 'timeout')
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

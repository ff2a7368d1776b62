import { z } from 'zod';
import { ApiError } from '../http/errors';
import { ANSWER_LIMITS } from '../outbound/answer-limits';
import { guardedFetch } from '../outbound/fetch';
import { OutboundError, type OutboundPolicy } from '../outbound/http';
import { pcmSamples, ReadAheadPcm } from './pcm-stream';

/** An ElevenLabs account: `https://api.elevenlabs.io` and its `xi-api-key`. */
export interface ElevenLabsAccount {
  baseUrl: string;
  apiKey: string;
}

/** The rate asked for (`output_format=pcm_22050`): 16-bit little-endian mono, as eSpeak NG's. */
export const ELEVENLABS_PCM_RATE = 22_050;
/** The model when a persona names none: ElevenLabs' low-latency one. */
export const ELEVENLABS_DEFAULT_MODEL = 'eleven_flash_v2_5';

const upstream = (message: string) => new ApiError(502, 'UPSTREAM_ERROR', message);
const url = (account: ElevenLabsAccount, path: string) => `${account.baseUrl.replace(/\/+$/, '')}${path}`;

/** A failure of the guarded fetch, said as the 502 it is (no URL, no key). */
function unreachable(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  if (error instanceof OutboundError && error.kind === 'too_large')
    return new ApiError(502, 'RESPONSE_TOO_LARGE', 'The voice provider answered too much audio');
  if (error instanceof OutboundError && error.kind === 'timeout')
    return upstream('The voice provider did not answer in time');
  const cause = (error as { cause?: { code?: string } }).cause?.code;
  return upstream(`The voice provider cannot be reached${cause ? ` (${cause})` : ''}`);
}

/**
 * `text` in ElevenLabs voice `voiceId` as samples as they stream: `POST
 * /v1/text-to-speech/{voice_id}/stream` with `output_format=pcm_22050` (ElevenLabs' streaming
 * endpoint; the body is raw PCM, sent as it is generated), through the SSRF-guarded fetch within
 * ANSWER_LIMITS.speech. Answers once the provider has accepted the request (a refusal is a 502 here);
 * the samples are read ahead as they come, and a failure part-way (or an odd byte count) is a 502
 * thrown by the stream after what came before it.
 */
export async function elevenLabsSpeechStream(
  account: ElevenLabsAccount,
  policy: OutboundPolicy,
  request: { voiceId: string; model: string; text: string },
): Promise<ReadAheadPcm> {
  const target = url(
    account,
    `/v1/text-to-speech/${encodeURIComponent(request.voiceId)}/stream?output_format=pcm_${ELEVENLABS_PCM_RATE}`,
  );
  let body: ReadableStream<Uint8Array>;
  try {
    const res = await guardedFetch(policy, ANSWER_LIMITS.speech)(target, {
      method: 'POST',
      headers: { 'xi-api-key': account.apiKey, 'content-type': 'application/json' },
      body: JSON.stringify({ text: request.text, model_id: request.model }),
    });
    if (res.status < 200 || res.status >= 300) {
      await res.body?.cancel().catch(() => undefined);
      throw upstream(`The voice provider answered ${res.status}`);
    }
    body = res.body ?? new ReadableStream({ start: (c) => c.close() });
  } catch (error) {
    throw unreachable(error);
  }
  const oddBytes = () => upstream(`The voice provider's PCM has an odd number of bytes`);
  return new ReadAheadPcm(ELEVENLABS_PCM_RATE, unreachableWhileReading(pcmSamples(body, oddBytes)));
}

/** The stream's failures said as the 502s they are. */
async function* unreachableWhileReading(samples: AsyncIterable<Int16Array>): AsyncGenerator<Int16Array> {
  try {
    yield* samples;
  } catch (error) {
    throw unreachable(error);
  }
}

/** `text` in ElevenLabs voice `voiceId`, whole (elevenLabsSpeechStream read to its end). */
export async function elevenLabsSpeechPcm(
  account: ElevenLabsAccount,
  policy: OutboundPolicy,
  request: { voiceId: string; model: string; text: string },
): Promise<{ pcm: Int16Array; sampleRate: number }> {
  const stream = await elevenLabsSpeechStream(account, policy, request);
  return { pcm: await stream.done, sampleRate: ELEVENLABS_PCM_RATE };
}

const ElevenLabsVoices = z.object({
  voices: z
    .array(
      z.object({
        voice_id: z.string().min(1).max(200),
        name: z.string().max(200).nullish(),
        category: z.string().max(100).nullish(),
        labels: z.record(z.string(), z.string().nullish()).nullish(),
        preview_url: z.string().max(2048).nullish(),
      }),
    )
    .max(1000),
});
export type ElevenLabsVoice = z.infer<typeof ElevenLabsVoices>['voices'][number];

/** The account's ElevenLabs voices (`GET /v1/voices`); a refusal or a malformed answer is a 502. */
export async function elevenLabsVoices(
  account: ElevenLabsAccount,
  policy: OutboundPolicy,
): Promise<ElevenLabsVoice[]> {
  let json: unknown;
  try {
    const res = await guardedFetch(policy, ANSWER_LIMITS.speech)(url(account, '/v1/voices'), {
      headers: { 'xi-api-key': account.apiKey, accept: 'application/json' },
    });
    if (res.status < 200 || res.status >= 300) throw upstream(`The voice provider answered ${res.status}`);
    json = await res.json();
  } catch (error) {
    throw unreachable(error);
  }
  const parsed = ElevenLabsVoices.safeParse(json);
  if (!parsed.success) throw upstream('The voice provider listed its voices in an unknown shape');
  return parsed.data.voices;
}

import { type Dispatcher, request } from 'undici';
import { z } from 'zod';
import { inClientSpan } from '../telemetry/tracing';
import { ANSWER_LIMITS, OutboundError, readCapped } from './answer-limits';
import { pcm16ToWav } from './wav';

/** A caller's utterance: mono PCM16 samples at `sampleRate` Hz (the VAD's are 16 kHz). */
export interface Utterance {
  pcm16: Int16Array;
  sampleRate: number;
}

/** What the caller said, as the provider recognized it (trimmed; empty when it heard no words). */
export interface Transcript {
  text: string;
}

/**
 * Speech-to-text: one whole utterance in, its words out. A provider that streams partial transcripts
 * can be added behind another method without changing this one.
 */
export interface SpeechToText {
  /**
   * Transcribes `utterance`. Aborting `signal` (the caller gave up, or barged in) rejects with the
   * signal's reason; the provider's failures reject with TranscriptionError.
   */
  transcribe(utterance: Utterance, signal?: AbortSignal): Promise<Transcript>;
}

/** An OpenAI-compatible transcription endpoint: `POST {baseUrl}/audio/transcriptions` (the `STT_*` variables). */
export interface SpeechToTextConfig {
  /** Includes the API version, as `LLM_BASE_URL` does: `https://api.openai.com/v1`. */
  baseUrl: string;
  apiKey?: string;
  model: string;
  /** The whole exchange, connection to last byte. */
  timeoutMs: number;
  /** The language spoken (ISO 639-1), a hint sent as the form's `language`. */
  language?: string;
  /** How to connect (an account's provider: the SSRF-guarded pool); default: undici's global one. */
  dispatcher?: Dispatcher;
  /** Told of each utterance the provider transcribed (its audio, in ms): the account's usage. */
  onTranscribed?(audioMs: number): void;
}

/** `STT_TIMEOUT`: no whole answer in time; `STT_FAILED`: unreachable, refused (non-2xx) or no transcript. */
export type TranscriptionErrorCode = 'STT_TIMEOUT' | 'STT_FAILED';

/** A transcription that failed. Messages name no URL, key or provider answer (they may reach a client). */
export class TranscriptionError extends Error {
  constructor(
    readonly code: TranscriptionErrorCode,
    message: string,
    /** The provider's HTTP status, when it answered one. */
    readonly status?: number,
  ) {
    super(message);
    this.name = 'TranscriptionError';
  }
}

/** A transcript is a few hundred bytes; an answer past this is not one (ANSWER_LIMITS.transcription). */
export const TRANSCRIPTION_MAX_ANSWER_BYTES = ANSWER_LIMITS.transcription.maxBytes;

const TranscriptionAnswer = z.object({ text: z.string() });

/** The speech-to-text provider `config` names, or undefined when none is configured (`STT_BASE_URL` unset). */
export function createSpeechToText(config: SpeechToTextConfig | undefined): SpeechToText | undefined {
  return config ? new OpenAiCompatibleSpeechToText(config) : undefined;
}

/**
 * The OpenAI transcription API (`response_format=json`, answering `{ text }`), which hosted Whisper
 * services and whisper.cpp's server also speak (docs/speech-to-text.md). The utterance is uploaded as
 * a WAV file. The endpoint is the operator's own configuration, so, as for the LLM's, no SSRF guard:
 * a local whisper.cpp server is a loopback address.
 */
class OpenAiCompatibleSpeechToText implements SpeechToText {
  private readonly url: string;
  /** Private (#): never in a log line that serializes this object. */
  readonly #config: SpeechToTextConfig;

  constructor(config: SpeechToTextConfig) {
    this.#config = config;
    this.url = `${config.baseUrl.replace(/\/+$/, '')}/audio/transcriptions`;
  }

  async transcribe(utterance: Utterance, signal?: AbortSignal): Promise<Transcript> {
    signal?.throwIfAborted();
    const { model, apiKey, timeoutMs, language } = this.#config;
    const form = new FormData();
    const wav = pcm16ToWav(utterance.pcm16, utterance.sampleRate);
    form.append('file', new Blob([wav], { type: 'audio/wav' }), 'utterance.wav');
    form.append('model', model);
    form.append('response_format', 'json');
    if (language) form.append('language', language);
    // the form as bytes (the Fetch API's own multipart encoding): undici's request() may run on the
    // global dispatcher of Node's built-in fetch, which does not send the package's FormData
    const encoded = new Response(form);
    const body = Buffer.from(await encoded.arrayBuffer());
    const headers: Record<string, string> = {
      accept: 'application/json',
      'content-type': encoded.headers.get('content-type') ?? 'multipart/form-data',
    };
    if (apiKey) headers.authorization = `Bearer ${apiKey}`;
    const deadline = AbortSignal.timeout(timeoutMs);
    let answer: { status: number; body: string };
    try {
      answer = await inClientSpan('POST', this.url, async () => {
        const response = await request(this.url, {
          method: 'POST',
          headers,
          body,
          signal: signal ? AbortSignal.any([signal, deadline]) : deadline,
          ...(this.#config.dispatcher ? { dispatcher: this.#config.dispatcher } : {}),
        });
        return { status: response.statusCode, body: await readText(response.body) };
      });
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      if (error instanceof TranscriptionError) throw error;
      if (deadline.aborted)
        throw new TranscriptionError(
          'STT_TIMEOUT',
          `The speech-to-text provider did not answer within ${timeoutMs} ms`,
        );
      throw new TranscriptionError(
        'STT_FAILED',
        `The speech-to-text provider cannot be reached (${reason(error)})`,
      );
    }
    if (answer.status < 200 || answer.status >= 300)
      throw new TranscriptionError(
        'STT_FAILED',
        `The speech-to-text provider answered ${answer.status}`,
        answer.status,
      );
    const text = parseTranscript(answer.body, answer.status);
    this.#config.onTranscribed?.((1000 * utterance.pcm16.length) / utterance.sampleRate);
    return { text };
  }
}

/** The answer's text, refused past TRANSCRIPTION_MAX_ANSWER_BYTES (the connection is then closed). */
async function readText(body: Parameters<typeof readCapped>[0]): Promise<string> {
  try {
    return (await readCapped(body, TRANSCRIPTION_MAX_ANSWER_BYTES)).toString('utf8');
  } catch (error) {
    if (!(error instanceof OutboundError)) throw error;
    throw new TranscriptionError(
      'STT_FAILED',
      `The speech-to-text provider answered more than ${TRANSCRIPTION_MAX_ANSWER_BYTES} bytes`,
    );
  }
}

/** `{ text }` from a 2xx answer's body; anything else is STT_FAILED. */
function parseTranscript(body: string, status: number): string {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    json = undefined;
  }
  const parsed = TranscriptionAnswer.safeParse(json);
  if (!parsed.success)
    throw new TranscriptionError(
      'STT_FAILED',
      'The speech-to-text provider answered without a transcript',
      status,
    );
  return parsed.data.text.trim();
}

/** A network failure's code (`ECONNREFUSED`, `UND_ERR_SOCKET`) or message, never the request's URL or headers. */
function reason(error: unknown): string {
  const { code, message, cause } = error as { code?: string; message?: string; cause?: { code?: string } };
  return cause?.code ?? code ?? message ?? String(error);
}

import http from 'node:http';
import { Request } from 'undici';
import { readWav } from '../../src/outbound/wav';

/** The audio a transcription request carried, decoded from its WAV file. */
export interface ReceivedAudio {
  sampleRate: number;
  channels: number;
  samples: Int16Array;
  seconds: number;
  /** Root mean square of the samples, as a fraction of full scale (0 is digital silence). */
  rms: number;
}

/** A transcription request as the double received it. */
export interface SttRequest {
  model: string | null;
  responseFormat: string | null;
  /** The form's `language` (a hint), when sent. */
  language: string | null;
  /** The `Authorization` header as sent (undefined: none). */
  authorization?: string;
  fileName: string;
  fileType: string;
  audio: ReceivedAudio;
}

/** How the double answers; `configure` changes it between requests. */
export interface SttBehavior {
  /** Answer only after this long (default 100 ms, a hosted provider's order for a short utterance). */
  delayMs: number;
  /** The transcript: a fixed string, or one made from the audio received. */
  transcript: string | ((audio: ReceivedAudio) => string);
  /** Answer this status instead of a transcript (`{"error":…}` unless `body` is given). */
  status?: number;
  /** Answer this body as is (with `status`, default 200) instead of a transcript. */
  body?: string;
  /** Never answer: the request stays open until the client gives up or the double closes. */
  hang?: boolean;
}

const DEFAULT_BEHAVIOR: SttBehavior = { delayMs: 100, transcript: 'hello' };

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Root mean square of PCM16 samples, as a fraction of full scale. */
export function rmsOf(samples: Int16Array): number {
  let sum = 0;
  for (const s of samples) sum += (s / 32_768) ** 2;
  return samples.length ? Math.sqrt(sum / samples.length) : 0;
}

/** The multipart form of a raw request body, parsed by undici's own multipart parser. */
async function readForm(req: http.IncomingMessage): Promise<Awaited<ReturnType<Request['formData']>>> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const request = new Request('http://stt-double/v1/audio/transcriptions', {
    method: 'POST',
    headers: { 'content-type': req.headers['content-type'] ?? '' },
    body: Buffer.concat(chunks),
  });
  return request.formData();
}

/** Reads one request into an SttRequest, or answers 400 and returns undefined. */
async function readRequest(
  req: http.IncomingMessage,
  res: http.ServerResponse,
): Promise<SttRequest | undefined> {
  const refuse = (message: string) => {
    res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message } }));
    return undefined;
  };
  let form: Awaited<ReturnType<typeof readForm>>;
  try {
    form = await readForm(req);
  } catch (error) {
    return refuse(`not a multipart form: ${(error as Error).message}`);
  }
  const file = form.get('file');
  if (!file || typeof file === 'string') return refuse('no file');
  let wav: ReturnType<typeof readWav>;
  try {
    wav = readWav(new Uint8Array(await file.arrayBuffer()));
  } catch (error) {
    return refuse(`not a PCM16 WAV file: ${(error as Error).message}`);
  }
  const frames = wav.samples.length / wav.channels;
  return {
    model: form.get('model') as string | null,
    responseFormat: form.get('response_format') as string | null,
    language: form.get('language') as string | null,
    authorization: req.headers.authorization,
    fileName: (file as { name?: string }).name ?? '',
    fileType: file.type,
    audio: {
      sampleRate: wav.sampleRate,
      channels: wav.channels,
      samples: wav.samples,
      seconds: frames / wav.sampleRate,
      rms: rmsOf(wav.samples),
    },
  };
}

/**
 * A local double of an OpenAI-compatible transcription endpoint (`POST /v1/audio/transcriptions`,
 * multipart with a WAV `file`): it decodes and records each request's audio, model and authorization,
 * and answers `{ text }` after `delayMs`, or fails (`status`), answers a body as given, or hangs, as
 * `configure` says. Requests whose client closed the connection before the answer are counted in
 * `abandoned` (a timeout, an abort).
 */
export async function startSttDouble(initial: Partial<SttBehavior> = {}): Promise<{
  baseUrl: string;
  requests: SttRequest[];
  /** How many requests the client left before they were answered. */
  readonly abandoned: number;
  /** Changes how the next requests are answered (fields not given stay as they are). */
  configure(change: Partial<SttBehavior>): void;
  close(): Promise<void>;
}> {
  let behavior: SttBehavior = { ...DEFAULT_BEHAVIOR, ...initial };
  const requests: SttRequest[] = [];
  let abandoned = 0;
  const server = http.createServer(async (req, res) => {
    if (req.method !== 'POST' || req.url !== '/v1/audio/transcriptions') {
      req.resume();
      res.writeHead(404).end();
      return;
    }
    res.on('close', () => {
      if (!res.writableFinished) abandoned++;
    });
    const received = await readRequest(req, res);
    if (!received) return;
    requests.push(received);
    const now = behavior; // the behavior when the request arrived
    if (now.hang) return;
    await sleep(now.delayMs);
    if (res.destroyed) return;
    if (now.status !== undefined || now.body !== undefined) {
      const body =
        now.body ?? JSON.stringify({ error: { message: 'transcription failed', type: 'server_error' } });
      res.writeHead(now.status ?? 200, { 'content-type': 'application/json' }).end(body);
      return;
    }
    const text = typeof now.transcript === 'function' ? now.transcript(received.audio) : now.transcript;
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ text }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as { port: number }).port}/v1`,
    requests,
    get abandoned() {
      return abandoned;
    },
    configure: (change) => {
      behavior = { ...behavior, ...change };
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

import http from 'node:http';

/** A text-to-speech request as the double received it. */
export interface ElevenLabsRequest {
  voiceId: string;
  outputFormat: string | null;
  apiKey: string | undefined;
  text: string;
  modelId: string | undefined;
  /** When the request arrived and when its first and last audio bytes were written (performance.now()). */
  at: number;
  firstByteAt?: number;
  lastByteAt?: number;
  /** The audio bytes it answered. */
  bytes?: number;
}

/** A voice as `GET /v1/voices` lists it. */
const VOICES = [
  {
    voice_id: '21m00Tcm4TlvDq8ikWAM',
    name: 'Rachel',
    category: 'premade',
    labels: { accent: 'american', gender: 'female' },
    preview_url: 'https://storage.googleapis.com/eleven-public-prod/premade/voices/rachel.mp3',
  },
  {
    voice_id: 'pNInz6obpgDQGcFmaJgB',
    name: 'Adam',
    category: 'premade',
    labels: { gender: 'male' },
    preview_url: null,
  },
];

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** `ms` of a voiced tone at `rate` (PCM16 LE bytes): audio a caller hears as sound. */
function voicedTone(ms: number, rate: number): Buffer {
  const pcm = Buffer.alloc(Math.round((rate * ms) / 1000) * 2);
  for (let i = 0; i < pcm.length / 2; i++) {
    const s = Math.sin((2 * Math.PI * 180 * i) / rate) * 0.6 + Math.sin((2 * Math.PI * 360 * i) / rate) * 0.3;
    pcm.writeInt16LE(Math.round(9000 * s * (0.6 + 0.4 * Math.sin((2 * Math.PI * 4 * i) / rate))), i * 2);
  }
  return pcm;
}

/**
 * An ElevenLabs double, following its public API reference: `POST /v1/text-to-speech/{voice_id}/stream`
 * (`xi-api-key`, `{ text, model_id }`, `output_format` such as `pcm_22050`: raw 16-bit mono PCM at that
 * rate, streamed chunked as it is made: the first bytes after `firstByteMs`, the rest in 4 KiB chunks)
 * and `GET /v1/voices` (`{ voices: [...] }`). A wrong key is a 401 with ElevenLabs' error body.
 * Audio is a voiced tone of 60 ms per character.
 */
export async function startElevenLabsDouble(opts: {
  apiKey: string;
  firstByteMs?: number;
  chunkEveryMs?: number;
}) {
  const requests: ElevenLabsRequest[] = [];
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const url = new URL(req.url ?? '/', 'http://double');
    if (req.headers['xi-api-key'] !== opts.apiKey) {
      res.writeHead(401, { 'content-type': 'application/json' });
      return void res.end(
        JSON.stringify({ detail: { status: 'invalid_api_key', message: 'Invalid API key' } }),
      );
    }
    if (req.method === 'GET' && url.pathname === '/v1/voices') {
      res.writeHead(200, { 'content-type': 'application/json' });
      return void res.end(JSON.stringify({ voices: VOICES }));
    }
    const match = /^\/v1\/text-to-speech\/([^/]+)\/stream$/.exec(url.pathname);
    if (req.method !== 'POST' || !match) return void res.writeHead(404).end();
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { text: string; model_id?: string };
    const outputFormat = url.searchParams.get('output_format');
    const request: ElevenLabsRequest = {
      voiceId: decodeURIComponent(match[1]!),
      outputFormat,
      apiKey: req.headers['xi-api-key'] as string | undefined,
      text: body.text,
      modelId: body.model_id,
      at: performance.now(),
    };
    requests.push(request);
    const rate = Number(/^pcm_(\d+)$/.exec(outputFormat ?? '')?.[1] ?? 0);
    if (!rate) {
      res.writeHead(422, { 'content-type': 'application/json' });
      return void res.end(
        JSON.stringify({ detail: { status: 'invalid_output_format', message: 'pcm only here' } }),
      );
    }
    const audio = voicedTone(60 * [...body.text].length, rate);
    res.writeHead(200, { 'content-type': 'audio/pcm', 'transfer-encoding': 'chunked' });
    request.bytes = audio.length;
    await sleep(opts.firstByteMs ?? 150);
    for (let offset = 0; offset < audio.length && !res.destroyed; offset += 4096) {
      if (offset === 0) request.firstByteAt = performance.now();
      res.write(audio.subarray(offset, offset + 4096));
      if (offset + 4096 >= audio.length) request.lastByteAt = performance.now();
      else if (opts.chunkEveryMs) await sleep(opts.chunkEveryMs);
    }
    res.end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    requests,
    voices: VOICES,
    /** Changes the pace of the answers to come. */
    pace(pace: { firstByteMs?: number; chunkEveryMs?: number }) {
      Object.assign(opts, pace);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ESPEAK_CATALOG } from '../src/voices/voices.catalog';
import { decodeMp3 } from './support/mp3';
import { call, type Developer, newDeveloper, startTestApp, type TestApp } from './support/test-app';

/** A mono 16-bit WAV of a 440 Hz sine: what the OpenAI-compatible double answers. */
function sineWav(samples: number, sampleRate: number): Buffer {
  const data = Buffer.alloc(samples * 2);
  for (let i = 0; i < samples; i++) {
    data.writeInt16LE(Math.round(8000 * Math.sin((2 * Math.PI * 440 * i) / sampleRate)), i * 2);
  }
  const header = Buffer.alloc(44);
  header.write('RIFF', 0);
  header.writeUInt32LE(36 + data.length, 4);
  header.write('WAVEfmt ', 8);
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(1, 22);
  header.writeUInt32LE(sampleRate, 24);
  header.writeUInt32LE(sampleRate * 2, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36);
  header.writeUInt32LE(data.length, 40);
  return Buffer.concat([header, data]);
}

const rms = (s: Float32Array) => Math.sqrt(s.reduce((sum, x) => sum + x * x, 0) / s.length);

function audioOf(audioUrl: string): { mime: string; bytes: Buffer } {
  const match = /^data:(audio\/[a-z0-9.+-]+);base64,([A-Za-z0-9+/]+=*)$/.exec(audioUrl);
  if (!match) throw new Error(`not a base64 audio data URL: ${audioUrl.slice(0, 60)}`);
  return { mime: match[1], bytes: Buffer.from(match[2], 'base64') };
}

/** An OpenAI-compatible `POST /v1/audio/speech` double: answers a WAV of 1.25 s at 24 kHz. */
interface SpeechRequest {
  authorization?: string;
  body: { model: string; voice: string; input: string; response_format: string };
}
const DOUBLE_SAMPLES = 30_000;
const DOUBLE_RATE = 24_000;

async function startSpeechDouble() {
  const requests: SpeechRequest[] = [];
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => {
      raw += c;
    });
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/audio/speech') {
        res.writeHead(404).end();
        return;
      }
      const body = JSON.parse(raw);
      requests.push({ authorization: req.headers.authorization, body });
      if (String(body.input).includes('FAIL')) {
        res
          .writeHead(500, { 'content-type': 'application/json' })
          .end('{"error":{"message":"model overloaded"}}');
        return;
      }
      res.writeHead(200, { 'content-type': 'audio/wav' }).end(sineWav(DOUBLE_SAMPLES, DOUBLE_RATE));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe('voices (console API)', () => {
  let app: TestApp;
  let dev: Developer;
  let double: Awaited<ReturnType<typeof startSpeechDouble>>;

  beforeAll(async () => {
    double = await startSpeechDouble();
    app = await startTestApp({
      TTS_BASE_URL: double.url,
      TTS_API_KEY: 'sk-test-voices',
      TTS_VOICES: 'alloy,nova,marin',
      RATE_LIMITS: 'off',
    });
    dev = await newDeveloper(app, 'voices');
  });
  afterAll(async () => {
    await app?.close();
    await double?.close();
  });

  const get = (query = '', token: string | null = dev.token) =>
    call(app.baseUrl, 'GET', `/api/v1/developers/voices${query}`, { token: token ?? undefined });
  const preview = (body: unknown, token: string | null = dev.token) =>
    call(app.baseUrl, 'POST', '/api/v1/developers/voices/preview', { token: token ?? undefined, body });

  it('requires an ID token (voices are the same for every account)', async () => {
    expect((await get('', null)).status).toBe(401);
    expect((await preview({ voice_id: 'espeak-en-us-aria', text: 'Hi' }, null)).status).toBe(401);
    expect((await get('', dev.liveKey)).status).toBe(401); // an API key is not an ID token
  });

  it('lists the offline voices and the configured endpoint’s, as {voices}', async () => {
    const res = await get();
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(['voices', 'providerVoices', 'providerErrors']);
    const voices = res.body.voices as Array<Record<string, unknown>>;
    expect(voices.filter((v) => v.provider === 'espeak-ng')).toHaveLength(ESPEAK_CATALOG.length);
    expect(voices.filter((v) => v.provider === 'openai-compatible').map((v) => v.id)).toEqual([
      'openai-alloy',
      'openai-nova',
      'openai-marin',
    ]);
    expect(voices[0]).toEqual({
      id: 'espeak-en-us-aria',
      name: 'Aria',
      description: expect.any(String),
      gender: 'female',
      category: 'conversational',
      tags: expect.arrayContaining(['american']),
      provider: 'espeak-ng',
      language: 'en-US',
      sampleText: expect.any(String),
    });
  });

  it('filters by gender, category, language and provider, exactly and together', async () => {
    for (const gender of ['male', 'female', 'neutral']) {
      const res = await get(`?gender=${gender}`);
      expect(res.status).toBe(200);
      expect(res.body.voices.length).toBeGreaterThan(0);
      expect(res.body.voices.every((v: { gender: string }) => v.gender === gender)).toBe(true);
    }
    const narration = (await get('?category=narration')).body.voices;
    expect(narration.map((v: { id: string }) => v.id)).toEqual(
      expect.arrayContaining(['espeak-en-us-walter', 'espeak-en-gb-olivia', 'espeak-fr-fr-louis']),
    );
    expect(narration.every((v: { category: string }) => v.category === 'narration')).toBe(true);
    expect((await get('?category=narr')).body.voices).toEqual([]);
    const british = (await get('?language=en-gb')).body.voices.map((v: { id: string }) => v.id);
    expect(british.sort()).toEqual(['espeak-en-gb-arthur', 'espeak-en-gb-olivia']);
    expect((await get('?gender=male&language=fr-FR')).body.voices.map((v: { id: string }) => v.id)).toEqual([
      'espeak-fr-fr-louis',
    ]);
    expect(
      (await get('?gender=female&category=professional&language=de-DE')).body.voices.map(
        (v: { id: string }) => v.id,
      ),
    ).toEqual(['espeak-de-de-lena']);
    expect(
      (await get('?provider=openai-compatible&gender=female')).body.voices.map((v: { id: string }) => v.id),
    ).toEqual(['openai-nova']);
  });

  it('answers 400 VALIDATION_FAILED naming the field for a bad gender or an unknown query field', async () => {
    const bad = await get('?gender=robot');
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('VALIDATION_FAILED');
    expect(bad.body.validationErrors).toEqual([expect.stringMatching(/^gender: /)]);
    const unknown = await get('?gender=male&accent=scottish');
    expect(unknown.status).toBe(400);
    expect(unknown.body.validationErrors).toEqual(['accent: unknown field']);
    expect((await get('?gender=male&gender=female')).status).toBe(400);
    expect((await get('?category=')).body.validationErrors).toEqual([expect.stringMatching(/^category: /)]);
  });

  it('previews a voice: MP3 that decodes to the stated duration, with real (non-silent) speech', async () => {
    const text = 'Thanks for calling the clinic. How can I help you today?';
    const res = await preview({ voice_id: 'espeak-en-us-grace', text });
    expect(res.status).toBe(200);
    const { audioUrl, duration, text: echoed } = res.body.preview;
    expect(echoed).toBe(text);
    const { mime, bytes } = audioOf(audioUrl);
    expect(mime).toBe('audio/mpeg');
    expect(duration).toBeGreaterThan(2);
    expect(duration).toBeLessThan(8);
    const decoded = await decodeMp3(bytes);
    expect(decoded.sampleRate).toBe(22050);
    const decodedSeconds = decoded.samplesDecoded / decoded.sampleRate;
    expect(decodedSeconds).toBeGreaterThanOrEqual(duration);
    expect(decodedSeconds - duration).toBeLessThan(0.15); // encoder delay and last-frame padding
    expect(rms(decoded.channelData[0])).toBeGreaterThan(0.02);
    // 32 kbps: about 4 KB per second of speech
    expect(bytes.length).toBeLessThan(duration * 4000 + 1500);
  });

  it('speaks other languages and accents', async () => {
    for (const [voice_id, text] of [
      ['espeak-es-419-mateo', 'Hola, con gusto te ayudo con tu pedido.'],
      ['espeak-hi-in-priya', 'नमस्ते, मैं आपकी कैसे मदद कर सकती हूँ?'],
      ['espeak-en-us-hush', 'Close your eyes and breathe.'],
    ]) {
      const res = await preview({ voice_id, text });
      expect(res.status).toBe(200);
      const decoded = await decodeMp3(audioOf(res.body.preview.audioUrl).bytes);
      expect(rms(decoded.channelData[0])).toBeGreaterThan(0.005);
    }
  });

  it('answers 404 for an unknown voice and 400 for bad text or fields', async () => {
    const missing = await preview({ voice_id: 'espeak-xx-nobody', text: 'Hello' });
    expect(missing.status).toBe(404);
    expect(missing.body.code).toBe('NOT_FOUND');
    const cases: Array<[unknown, string]> = [
      [{ voice_id: 'espeak-en-us-aria', text: '' }, 'text: '],
      [{ voice_id: 'espeak-en-us-aria', text: 'x'.repeat(501) }, 'text: must be at most 500 characters'],
      [{ voice_id: 'espeak-en-us-aria', text: '   ' }, 'text: must not be only whitespace'],
      [{ voice_id: 'espeak-en-us-aria' }, 'text: '],
      [{ text: 'Hello' }, 'voice_id: '],
      [{ voice_id: 'espeak-en-us-aria', text: 'Hello', speed: 2 }, 'speed: unknown field'],
    ];
    for (const [body, problem] of cases) {
      const res = await preview(body);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('VALIDATION_FAILED');
      expect(res.body.validationErrors).toEqual([expect.stringContaining(problem)]);
    }
    // 500 characters (code points, so 500 emoji-free accented letters) are fine
    const longest = await preview({
      voice_id: 'espeak-fr-fr-camille',
      text: 'é'.repeat(250) + ' '.repeat(250),
    });
    expect(longest.status).toBe(200);
  });

  it('answers a repeated preview from the cache: the same audio, at once', async () => {
    const body = {
      voice_id: 'espeak-en-us-miles',
      text: `Cached preview ${Date.now()}: your table is ready.`,
    };
    const t0 = performance.now();
    const first = await preview(body);
    const firstMs = performance.now() - t0;
    const t1 = performance.now();
    const second = await preview(body);
    const secondMs = performance.now() - t1;
    expect(first.status).toBe(200);
    expect(second.body).toEqual(first.body);
    expect(secondMs).toBeLessThan(Math.max(50, firstMs));
    expect(app.ctx.speech.stats().cache.entries).toBeGreaterThan(0);
  });

  it('keeps /healthz answering while previews are made', async () => {
    const running = Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        preview({ voice_id: 'espeak-de-de-jonas', text: `Satz Nummer ${i} für den Test, bitte sehr.` }),
      ),
    );
    const t0 = performance.now();
    const health = await call(app.baseUrl, 'GET', '/healthz');
    const healthMs = performance.now() - t0;
    const results = await running;
    expect(health.status).toBe(200);
    expect(results.every((r) => r.status === 200)).toBe(true);
    expect(healthMs).toBeLessThan(500);
  });

  it('previews a voice of the OpenAI-compatible endpoint through the outbound guard, measuring its WAV', async () => {
    const text = 'Hello from the cloud voice.';
    const res = await preview({ voice_id: 'openai-nova', text });
    expect(res.status).toBe(200);
    const { mime, bytes } = audioOf(res.body.preview.audioUrl);
    expect(mime).toBe('audio/wav');
    expect(bytes.equals(sineWav(DOUBLE_SAMPLES, DOUBLE_RATE))).toBe(true);
    expect(res.body.preview.duration).toBe(DOUBLE_SAMPLES / DOUBLE_RATE);
    expect(double.requests.at(-1)).toEqual({
      authorization: 'Bearer sk-test-voices',
      body: { model: 'tts-1', voice: 'nova', input: text, response_format: 'mp3' },
    });
    const failed = await preview({ voice_id: 'openai-marin', text: 'FAIL please' });
    expect(failed.status).toBe(502);
    expect(failed.body.code).toBe('UPSTREAM_ERROR');
    expect(failed.body.error).toContain('answered 500');
  });

  it('refuses a private speech endpoint when private outbound addresses are not allowed', async () => {
    const guarded = await startTestApp({
      TTS_BASE_URL: double.url,
      OUTBOUND_ALLOW_PRIVATE: 'false',
      RATE_LIMITS: 'off',
    });
    try {
      const other = await newDeveloper(guarded, 'voices-guard');
      const before = double.requests.length;
      const res = await call(guarded.baseUrl, 'POST', '/api/v1/developers/voices/preview', {
        token: other.token,
        body: { voice_id: 'openai-alloy', text: 'Hello' },
      });
      expect(res.status).toBe(502);
      expect(res.body.error).toMatch(/private or reserved/);
      expect(double.requests.length).toBe(before);
    } finally {
      await guarded.close();
    }
  });
});

/**
 * @jest-environment ./test/support/native-arrays-environment.js
 */

import { startWorker } from '../src/app/runtime';
import { resamplePcm16 } from '../src/outbound/wav';
import type { VoiceStreamClient } from '../src/sessions/stream/voice-stream-client';
import { startElevenLabsDouble } from './support/elevenlabs-double';
import { TEST_ENV } from './support/env';
import { speakWithEspeak } from './support/espeak-speech';
import { startLlmDouble } from './support/llm-double';
import { completeManifest } from './support/personas';
import { startSttDouble } from './support/stt-double';
import { call, type Developer, newDeveloper, startTestApp, type TestApp } from './support/test-app';
import { openStream, rms } from './support/voice-stream';

const XI_KEY = 'xi-alice-0123456789';
const STT_KEY = 'sk-alice-stt-0123456789';
const FRAME_SAMPLES = 320;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Sends `pcm` (16 kHz) as 20 ms frames at about real time, then a second of silence. */
async function talk(client: VoiceStreamClient, pcm: Int16Array): Promise<void> {
  const padded = new Int16Array(pcm.length + 16_000);
  padded.set(pcm);
  for (let i = 0; i < padded.length; i += FRAME_SAMPLES) {
    client.sendAudio(padded.slice(i, i + FRAME_SAMPLES));
    if ((i / FRAME_SAMPLES) % 5 === 4) await sleep(100);
  }
}

/**
 * An agent's own voice and transcriber (docs/providers.md "An agent's stack"): an ElevenLabs voice
 * and a transcription provider of its account, heard and used in a live call, listed by GET /voices,
 * previewed, and metered exactly (characters spoken, seconds transcribed).
 */
describe('an agent’s voice and transcriber from its account’s providers', () => {
  let app: TestApp;
  let worker: Awaited<ReturnType<typeof startWorker>>;
  let llm: Awaited<ReturnType<typeof startLlmDouble>>;
  let platformStt: Awaited<ReturnType<typeof startSttDouble>>;
  let ownStt: Awaited<ReturnType<typeof startSttDouble>>;
  let eleven: Awaited<ReturnType<typeof startElevenLabsDouble>>;
  let dev: Developer;
  let voiceProvider: string;
  let sttProvider: string;
  const api = (method: string, path: string, body?: unknown) =>
    call(app.baseUrl, method, `/api/v2/developers${path}`, { token: dev.testKey, body });
  const consoleApi = (method: string, path: string, body?: unknown) =>
    call(app.baseUrl, method, `/api/v1/developers${path}`, { token: dev.token, body });

  beforeAll(async () => {
    llm = await startLlmDouble();
    platformStt = await startSttDouble({ transcript: 'platform transcript' });
    ownStt = await startSttDouble({ transcript: 'Where is my parcel?' });
    eleven = await startElevenLabsDouble({ apiKey: XI_KEY });
    app = await startTestApp({
      LLM_BASE_URL: llm.baseUrl,
      STT_BASE_URL: platformStt.baseUrl,
      TEMPORAL_TASK_QUEUE: `vp-provider-stack-${process.pid}`,
      RATE_LIMITS: 'off',
    });
    worker = await startWorker(app.ctx, TEST_ENV.temporalAddress(), { dispatch: false });
    dev = await newDeveloper(app, 'stack');
    const voice = await api('POST', '/providers', {
      name: 'Our ElevenLabs',
      kind: 'voice',
      api: 'elevenlabs',
      baseUrl: eleven.baseUrl,
      apiKey: XI_KEY,
    });
    expect(voice.status).toBe(201);
    voiceProvider = voice.body.data.id;
    const stt = await api('POST', '/providers', {
      name: 'Our Whisper',
      kind: 'transcription',
      baseUrl: ownStt.baseUrl,
      apiKey: STT_KEY,
    });
    sttProvider = stt.body.data.id;
  });
  afterAll(async () => {
    await worker?.stop();
    await app?.close();
    await Promise.all([llm?.close(), platformStt?.close(), ownStt?.close(), eleven?.close()]);
  });

  it('GET /voices lists the account’s provider voices beside the catalog; a preview speaks in one', async () => {
    const listed = await consoleApi('GET', '/voices');
    expect(listed.status).toBe(200);
    expect(listed.body.voices.length).toBeGreaterThan(10);
    expect(listed.body.providerVoices.map((v: { voiceId: string }) => v.voiceId)).toEqual(
      eleven.voices.map((v) => v.voice_id),
    );
    expect(listed.body.providerVoices[0]).toMatchObject({ provider: voiceProvider, name: 'Rachel' });
    expect(listed.body.providerErrors).toEqual([]);
    expect(JSON.stringify(listed.body)).not.toContain(XI_KEY);
    const preview = await consoleApi('POST', '/voices/preview', {
      provider: voiceProvider,
      voice_id: '21m00Tcm4TlvDq8ikWAM',
      text: 'Hello there.',
    });
    expect(preview.status).toBe(200);
    expect(preview.body.preview.audioUrl.startsWith('data:audio/mpeg;base64,')).toBe(true);
    expect(preview.body.preview.duration).toBeCloseTo(0.72, 1); // 60 ms a character
    expect(eleven.requests.at(-1)).toMatchObject({
      voiceId: '21m00Tcm4TlvDq8ikWAM',
      outputFormat: 'pcm_22050',
      apiKey: XI_KEY,
      modelId: 'eleven_flash_v2_5',
      text: 'Hello there.',
    });
    // another account's provider is no voice of this one
    const other = await newDeveloper(app, 'stack-other');
    const refused = await call(app.baseUrl, 'POST', '/api/v1/developers/voices/preview', {
      token: other.token,
      body: { provider: voiceProvider, voice_id: '21m00Tcm4TlvDq8ikWAM', text: 'Hello there.' },
    });
    expect(refused.status).toBe(404);
  });

  it('a live call speaks in the ElevenLabs voice and hears through the account’s transcriber, metered', async () => {
    const manifest = {
      ...completeManifest('stack-agent'),
      voice: { provider: voiceProvider, voice_id: 'pNInz6obpgDQGcFmaJgB', model: 'eleven_turbo_v2_5' },
      conversation: { transcriber: { provider: sttProvider, model: 'whisper-large-v3', language: 'en' } },
    };
    const created = await consoleApi('POST', '/personas', { manifest });
    expect(created.status).toBe(201);
    const started = await api('POST', '/sessions', { personaId: created.body.persona.id, userId: 'caller' });
    const client = await openStream(app.baseUrl, started.body.data.id, { key: dev.testKey });
    const heard: { sampleRate: number; peak: number }[] = [];
    client.onAudio((pcm, format) => heard.push({ sampleRate: format.sampleRate, peak: rms(pcm) }));
    const ready = await client.next('session.ready');
    expect(ready.speechToText).toBe(true);
    await client.next('reply.done', (m) => m.turnId === 'greeting');
    const speech = await speakWithEspeak('Where is my parcel?');
    await talk(client, resamplePcm16(speech.pcm16, speech.sampleRate, 16_000));
    const recorded = await client.next('turn.recorded');
    expect(recorded.turn.text).toBe('Where is my parcel?');
    client.close();
    // heard: the provider's audio at its rate
    expect(heard.length).toBeGreaterThan(0);
    expect(heard.every((h) => h.sampleRate === 22_050)).toBe(true);
    const spoken = eleven.requests.filter((r) => r.voiceId === 'pNInz6obpgDQGcFmaJgB');
    expect(spoken.every((r) => r.modelId === 'eleven_turbo_v2_5' && r.apiKey === XI_KEY)).toBe(true);
    expect(spoken.map((r) => r.text).join(' ')).toContain('echo: Where is my parcel?');
    // heard through the account's transcriber, not the platform's
    expect(ownStt.requests).toHaveLength(1);
    expect(ownStt.requests[0]).toMatchObject({
      model: 'whisper-large-v3',
      language: 'en',
      authorization: `Bearer ${STT_KEY}`,
    });
    expect(platformStt.requests).toHaveLength(0);
    // metered exactly: every character the provider spoke, every second it transcribed
    const rows: { provider: string; kind: string; characters: string; audio_ms: string }[] =
      await app.ctx.orm.em
        .fork()
        .getConnection()
        .execute('select provider, kind, characters, audio_ms from provider_usage where account_id = ?', [
          dev.publisherId,
        ]);
    const voiceRow = rows.find((r) => r.kind === 'voice')!;
    const sttRow = rows.find((r) => r.kind === 'transcription')!;
    const characters = eleven.requests.reduce((n, r) => n + [...r.text].length, 0);
    expect(Number(voiceRow.characters)).toBe(characters);
    expect(sttRow.provider).toBe(sttProvider);
    expect(Number(sttRow.audio_ms)).toBeCloseTo(ownStt.requests[0]!.audio.seconds * 1000, -1);
  }, 60_000);

  it('plays a voice that streams from its first bytes: the caller hears it before the provider has finished', async () => {
    eleven.pace({ chunkEveryMs: 30 });
    try {
      const manifest = {
        ...completeManifest('streaming-agent'),
        voice: { provider: voiceProvider, voice_id: 'pNInz6obpgDQGcFmaJgB' },
      };
      const created = await consoleApi('POST', '/personas', { manifest });
      const started = await api('POST', '/sessions', {
        personaId: created.body.persona.id,
        userId: 'caller',
      });
      const client = await openStream(app.baseUrl, started.body.data.id, { key: dev.testKey });
      await client.next('reply.done', (m) => m.turnId === 'greeting');
      let firstAudioAt: number | undefined;
      client.onAudio((_pcm, _format, turnId) => {
        if (turnId !== 'greeting') firstAudioAt ??= performance.now();
      });
      client.send({ type: 'input.text', text: 'Tell me where my parcel is right now, please' });
      const header = await client.next('reply.audio', (m) => m.turnId !== 'greeting');
      expect(header.bytes).toBeNull();
      const done = await client.next(
        'reply.audio.done',
        (m) => m.turnId === header.turnId && m.segment === 0,
      );
      await client.next('turn.recorded');
      client.close();
      const request = eleven.requests.findLast((r) => r.text === header.text)!;
      expect(done.bytes).toBe(request.bytes);
      // the answer took about 30 ms a 4 KiB chunk; its first audio was heard long before its last byte
      expect(request.lastByteAt! - request.firstByteAt!).toBeGreaterThan(300);
      expect(firstAudioAt).toBeLessThan(request.lastByteAt!);
    } finally {
      eleven.pace({ chunkEveryMs: 0 });
    }
  }, 60_000);
});

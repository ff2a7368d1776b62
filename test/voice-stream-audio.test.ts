/**
 * @jest-environment ./test/support/native-arrays-environment.js
 */

import { startWorker } from '../src/app/runtime';
import { resamplePcm16 } from '../src/outbound/wav';
import type { VoiceStreamClient } from '../src/sessions/stream/voice-stream-client';
import { housekeepingScheduleId } from '../src/temporal/schedules';
import { taskQueuesFor } from '../src/temporal/task-queues';
import { TEST_ENV } from './support/env';
import { speakWithEspeak } from './support/espeak-speech';
import { startLlmDouble } from './support/llm-double';
import { decodeMp3 } from './support/mp3';
import { completeManifest } from './support/personas';
import { eventually } from './support/receiver';
import { startSttDouble } from './support/stt-double';
import { call, type Developer, newDeveloper, startTestApp, type TestApp } from './support/test-app';
import { openStream } from './support/voice-stream';

type LlmDouble = Awaited<ReturnType<typeof startLlmDouble>>;
type SttDouble = Awaited<ReturnType<typeof startSttDouble>>;

const FRAME_SAMPLES = 320; // 20 ms at 16 kHz
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** eSpeak's speech of `text`, at 16 kHz, followed by `silenceMs` of silence (the end of the utterance). */
async function spoken(text: string, silenceMs = 900): Promise<Int16Array> {
  const speech = await speakWithEspeak(text);
  const pcm = resamplePcm16(speech.pcm16, speech.sampleRate, 16_000);
  const out = new Int16Array(pcm.length + (silenceMs * 16_000) / 1000);
  out.set(pcm);
  return out;
}

/**
 * Sends caller audio in 20 ms frames at real time, five at a time (the stream takes audio at real
 * time plus a two-second burst, docs/voice-stream.md "Limits").
 */
async function talk(client: VoiceStreamClient, pcm: Int16Array): Promise<void> {
  for (let i = 0; i < pcm.length; i += FRAME_SAMPLES) {
    client.sendAudio(pcm.slice(i, i + FRAME_SAMPLES));
    if ((i / FRAME_SAMPLES) % 5 === 4) await sleep(100);
  }
}

/**
 * Caller audio on the live stream (docs/voice-stream.md "Caller audio"): eSpeak speech sent as PCM16
 * frames, voice activity detection (Silero, in the API), and a local OpenAI-compatible transcription
 * double (a real HTTP server that receives the WAV).
 */
describe('the live voice stream: caller audio in', () => {
  let app: TestApp;
  let worker: Awaited<ReturnType<typeof startWorker>>;
  let llm: LlmDouble;
  let stt: SttDouble;
  let dev: Developer;
  let personaId: string;
  const api = (method: string, path: string, body?: unknown) =>
    call(app.baseUrl, method, `/api/v2/developers${path}`, { token: dev.testKey, body });
  const open = async (extra: Record<string, unknown> = {}) => {
    const res = await api('POST', '/sessions', { personaId, userId: 'talker', ...extra });
    const client = await openStream(app.baseUrl, res.body.data.id, { key: dev.testKey });
    const ready = await client.next('session.ready');
    expect(ready.speechToText).toBe(true);
    await client.next('reply.done', (m) => m.turnId === 'greeting');
    return { client, id: res.body.data.id as string };
  };

  beforeAll(async () => {
    llm = await startLlmDouble();
    stt = await startSttDouble({ transcript: 'Where is my parcel?' });
    app = await startTestApp({
      LLM_BASE_URL: llm.baseUrl,
      STT_BASE_URL: stt.baseUrl,
      STT_API_KEY: 'stt-test-key',
      STT_TIMEOUT_MS: '2000',
      TEMPORAL_TASK_QUEUE: `vp-stream-audio-${process.pid}`,
      RATE_LIMITS: 'off',
    });
    worker = await startWorker(app.ctx, TEST_ENV.temporalAddress(), { dispatch: false });
    dev = await newDeveloper(app, 'talker');
    const created = await call(app.baseUrl, 'POST', '/api/v1/developers/personas', {
      token: dev.token,
      body: { manifest: completeManifest('talking-agent') },
    });
    personaId = created.body.persona.id;
  });
  afterAll(async () => {
    await worker?.stop();
    await app?.close();
    await stt?.close();
    await llm?.close();
  });
  beforeEach(() => {
    llm.script(undefined);
    stt.configure({ transcript: 'Where is my parcel?', status: undefined, hang: false, delayMs: 100 });
  });

  it('speech becomes a turn: the WAV reaches speech-to-text, the transcript comes back, the agent answers', async () => {
    const { client } = await open();
    const before = stt.requests.length;
    const utterance = await spoken('Where is my parcel?');
    await talk(client, utterance);
    const transcript = await client.next('input.transcript');
    expect(transcript.text).toBe('Where is my parcel?');
    const recorded = await client.next('turn.recorded');
    expect(recorded.turnId).toBe(transcript.turnId);
    expect(recorded.turn).toMatchObject({
      text: 'Where is my parcel?',
      reply: { text: 'echo: Where is my parcel?' },
    });
    expect(stt.requests.length).toBe(before + 1);
    const sent = stt.requests.at(-1)!;
    expect(sent).toMatchObject({ model: 'whisper-1', authorization: 'Bearer stt-test-key' });
    expect(sent.audio.sampleRate).toBe(16_000);
    // the utterance as detected: the speech, without most of the trailing silence
    expect(sent.audio.seconds).toBeGreaterThan(0.6);
    expect(sent.audio.seconds).toBeLessThan(utterance.length / 16_000 + 0.1);
    expect(sent.audio.rms).toBeGreaterThan(0.01);
    client.close();
  });

  it('a client that stops sending (push-to-talk) ends its utterance after VAD_SILENCE_MS', async () => {
    const { client } = await open();
    const before = stt.requests.length;
    // the speech and 100 ms of silence, in real time, then nothing more
    const pcm = await spoken('Where is my parcel?', 100);
    for (let i = 0; i < pcm.length; i += FRAME_SAMPLES) {
      client.sendAudio(pcm.slice(i, i + FRAME_SAMPLES));
      await sleep(20);
    }
    const transcript = await client.next('input.transcript', undefined, 10_000);
    expect(transcript.text).toBe('Where is my parcel?');
    expect(stt.requests.length).toBe(before + 1);
    await client.next('turn.recorded');
    client.close();
  });

  it('speech-to-text down: an error event, and the session goes on', async () => {
    const { client } = await open();
    stt.configure({ status: 500 });
    await talk(client, await spoken('Where is my parcel?'));
    const error = await client.next('error');
    expect(error.code).toBe('STT_FAILED');
    stt.configure({ hang: true });
    await talk(client, await spoken('Where is my parcel?'));
    expect((await client.next('error', undefined, 10_000)).code).toBe('STT_TIMEOUT');
    client.sendText('typing instead');
    expect((await client.next('turn.recorded')).turn.text).toBe('typing instead');
    client.close();
  });

  it('barge-in by speech: the caller talking over the reply stops it; a backchannel does not', async () => {
    const { client } = await open();
    const long = Array.from({ length: 15 }, (_, i) => `Here is detail number ${i + 1} of your order.`).join(
      ' ',
    );
    // the long reply to the first question only: the question over it gets a short one, whenever
    // its model call comes (it can come before this client has read its transcript)
    llm.script((req) =>
      String(req.messages.at(-1)?.content ?? '').includes('Tell me about my order')
        ? { content: long, tokenDelayMs: 30 }
        : { content: 'Okay, go ahead.' },
    );
    // a backchannel over the reply: heard, recognized as "uh-huh", nothing interrupted
    stt.configure({ transcript: 'uh-huh' });
    client.sendText('Tell me about my order');
    await client.next('reply.audio', (m) => m.turnId !== 'greeting');
    const heard = stt.requests.length;
    await talk(client, await spoken('uh-huh'));
    await eventually(async () => stt.requests.length > heard);
    await sleep(stt.requests.length && 300);
    expect(client.received.some((m) => m.type === 'interrupted')).toBe(false);
    // real speech over the reply: interrupted once it holds 700 ms of speech, then a turn of its own
    stt.configure({ transcript: 'Stop, I have a question' });
    await talk(client, await spoken('Stop, I have a different question about my order please'));
    const interrupted = await client.next('interrupted');
    const first = await client.next('turn.recorded', (m) => m.turnId === interrupted.turnId);
    expect(first.turn.interrupted).toBe(true);
    expect(long.startsWith(first.turn.spokenText)).toBe(true);
    const transcript = await client.next('input.transcript');
    expect(transcript.text).toBe('Stop, I have a question');
    llm.script(undefined);
    const second = await client.next('turn.recorded', (m) => m.turnId === transcript.turnId);
    expect(second.turn.text).toBe('Stop, I have a question');
    expect(client.received.filter((m) => m.type === 'turn.recorded')).toHaveLength(2);
    client.close();
  });

  it('recordings: the caller’s words and the reply as spoken, as MP3, per turn', async () => {
    const { client, id } = await open({ recording: true });
    await talk(client, await spoken('Where is my parcel?'));
    const recorded = await client.next('turn.recorded');
    const index = recorded.turn.index;
    const fetchAudio = (side: string) =>
      fetch(`${app.baseUrl}/api/v2/developers/sessions/${id}/turns/${index}/audio?side=${side}`, {
        headers: { authorization: `Bearer ${dev.testKey}` },
      });
    const caller = await eventually(async () => {
      const res = await fetchAudio('caller');
      return res.status === 200 && res;
    });
    expect(caller.headers.get('content-type')).toBe('audio/mpeg');
    const agent = await eventually(async () => {
      const res = await fetchAudio('agent');
      return res.status === 200 && res;
    });
    const callerPcm = await decodeMp3(new Uint8Array(await caller.arrayBuffer()));
    expect(callerPcm.sampleRate).toBe(16_000);
    expect(callerPcm.samplesDecoded / 16_000).toBeGreaterThan(0.6);
    const agentPcm = await decodeMp3(new Uint8Array(await agent.arrayBuffer()));
    expect(agentPcm.samplesDecoded / agentPcm.sampleRate).toBeGreaterThan(0.8);
    const missing = await fetch(`${app.baseUrl}/api/v2/developers/sessions/${id}/turns/99/audio?side=agent`, {
      headers: { authorization: `Bearer ${dev.testKey}` },
    });
    expect(missing.status).toBe(404);
    const bad = await api('GET', `/sessions/${id}/turns/${index}/audio?side=both`);
    expect(bad.status).toBe(400);
    client.close();

    // past RECORDING_RETENTION_DAYS (30) the hourly housekeeping deletes them, and only them
    const db = app.ctx.orm.em.fork().getConnection();
    await db.execute(
      `update session_turn_recordings set created_at = now() - interval '31 days' where session_id = ? and side = 'caller'`,
      [id],
    );
    await app.ctx.temporal.schedule
      .getHandle(housekeepingScheduleId(taskQueuesFor(TEST_ENV.taskQueue()).background))
      .trigger();
    await eventually(async () => (await fetchAudio('caller')).status === 404);
    expect((await fetchAudio('agent')).status).toBe(200);
  });

  it('audio in the wrong shape or flooding in: error events, and the call goes on', async () => {
    const { client } = await open();
    const errors: string[] = [];
    client.on((m) => {
      if (m.type === 'error') errors.push(m.code);
    });
    client.sendAudio(new Int16Array(0));
    (client as unknown as { socket: { send(d: Uint8Array): void } }).socket.send(new Uint8Array(3));
    for (let i = 0; i < 400; i++) client.sendAudio(new Int16Array(1024)); // 800 KB at once
    await eventually(async () => errors.includes('RATE_LIMITED'));
    expect(errors.slice(0, 2)).toEqual(['INVALID_AUDIO', 'INVALID_AUDIO']);
    client.sendText('still there?');
    expect((await client.next('turn.recorded')).turn.text).toBe('still there?');
    expect(client.closed).toBeUndefined();
    client.close();
  });
});

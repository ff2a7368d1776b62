/**
 * @jest-environment ./test/support/native-arrays-environment.js
 */

import type { AddressInfo } from 'node:net';
import { WebSocketServer } from 'ws';
import { startWorker } from '../src/app/runtime';
import { resamplePcm16 } from '../src/outbound/wav';
import { decodeMulaw } from '../src/telephony/audio';
import { CarrierMediaCall, type PhoneCallSetup } from '../src/telephony/media/carrier-media-call';
import { twilioMediaProtocol } from '../src/telephony/twilio/media-protocol';
import { TEST_ENV } from './support/env';
import { speakWithEspeak } from './support/espeak-speech';
import { startLlmDouble } from './support/llm-double';
import { completeManifest } from './support/personas';
import { startSttDouble } from './support/stt-double';
import { call, type Developer, newDeveloper, startTestApp, type TestApp } from './support/test-app';
import type { LineOptions } from './support/twilio-double/line-signal';
import { TwilioMediaStream } from './support/twilio-double/media-stream';

/** Polls `check` until it holds, or fails after `ms`. */
async function until(check: () => boolean | Promise<boolean>, what: string, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * A phone call's media stream over the turn engine (issue 39 items 2 and 5): the Twilio double's
 * stream (paced μ-law frames of eSpeak speech, marks echoed once played) against CarrierMediaCall (Twilio's protocol),
 * with the call's session found by a stand-in for the calls area (its `connect`).
 */
describe('a phone call’s media stream', () => {
  let app: TestApp;
  let worker: Awaited<ReturnType<typeof startWorker>>;
  let llm: Awaited<ReturnType<typeof startLlmDouble>>;
  let stt: Awaited<ReturnType<typeof startSttDouble>>;
  let dev: Developer;
  let personaId: string;
  let wss: WebSocketServer;
  const calls = new Map<string, PhoneCallSetup>();
  const ended: string[] = [];
  const hungUp: { callId: string; reason: string }[] = [];
  const streams: TwilioMediaStream[] = [];

  beforeAll(async () => {
    llm = await startLlmDouble();
    stt = await startSttDouble({ transcript: 'Where is my parcel?', delayMs: 50 });
    app = await startTestApp({
      LLM_BASE_URL: llm.baseUrl,
      STT_BASE_URL: stt.baseUrl,
      TEMPORAL_TASK_QUEUE: `vp-phone-media-${process.pid}`,
      RATE_LIMITS: 'off',
    });
    worker = await startWorker(app.ctx, TEST_ENV.temporalAddress(), { dispatch: false });
    dev = await newDeveloper(app, 'phone-media');
    const created = await call(app.baseUrl, 'POST', '/api/v1/developers/personas', {
      token: dev.token,
      body: { manifest: completeManifest('phone-agent') },
    });
    personaId = created.body.persona.id;
    wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    await new Promise((r) => wss.once('listening', r));
    wss.on('connection', (ws) => {
      new CarrierMediaCall(app.ctx, ws, twilioMediaProtocol, {
        connect: async (start) => {
          const setup = calls.get(start.callToken);
          if (!setup) throw new Error('unknown call token');
          return setup;
        },
        ended: (callId) => ended.push(callId),
        hangUp: async (callId, reason) => {
          hungUp.push({ callId, reason });
        },
      });
    });
  }, 120_000);
  afterAll(async () => {
    await Promise.all(streams.map((s) => s.stop().catch(() => undefined)));
    wss?.close();
    await worker?.stop();
    await app?.close();
    await stt?.close();
    await llm?.close();
  });

  /**
   * The caller will ask for "the long story", and the model answers it with `count` sentences
   * (anything else with "Okay."): the sentences.
   */
  function answerLongStory(count: number): string[] {
    const sentences = Array.from(
      { length: count },
      (_, i) => `Part ${i + 1} of the answer is about your parcel.`,
    );
    llm.script((req) =>
      String(req.messages.at(-1)?.content ?? '').includes('long')
        ? { content: sentences.join(' ') }
        : { content: 'Okay.' },
    );
    stt.configure({ transcript: 'Tell me the long story', delayMs: 50 });
    return sentences;
  }

  /** The session as GET /sessions/:id shows it (its transcript). */
  async function sessionDetail(sessionId: string) {
    return (
      await call(app.baseUrl, 'GET', `/api/v2/developers/sessions/${sessionId}`, { token: dev.testKey })
    ).body.data;
  }

  /** A session and its call's setup, as the calls area would give them for `callToken`. */
  async function phoneCall(
    callToken: string,
    line: LineOptions = {},
  ): Promise<{ sessionId: string; stream: TwilioMediaStream }> {
    const res = await call(app.baseUrl, 'POST', '/api/v2/developers/sessions', {
      token: dev.testKey,
      body: { personaId, userId: '+15551230000' },
    });
    expect(res.status).toBe(201);
    const sessionId = res.body.data.id as string;
    calls.set(callToken, {
      callId: `call_${callToken}`,
      sessionId,
      owner: { accountId: dev.publisherId, environment: 'test' },
      plan: 'free',
      greeting: res.body.data.greeting ?? 'Hi, this is Ava from Homegoods. How can I help?',
      voiceId: 'espeak-en-us-aria',
      backchannels: ['mm-hm'],
      recording: false,
    });
    const { port } = wss.address() as AddressInfo;
    const stream = new TwilioMediaStream({
      url: `ws://127.0.0.1:${port}/media`,
      accountSid: `AC${'0'.repeat(32)}`,
      authToken: 'not-checked-here',
      callSid: `CA${'1'.repeat(32)}`,
      customParameters: { callToken },
      ...line,
    });
    streams.push(stream);
    await stream.open();
    return { sessionId, stream };
  }

  it('greets in μ-law frames paced ahead of playback, hears a spoken question, answers, and records the turn', async () => {
    const { sessionId, stream } = await phoneCall('call-one');
    // the greeting: audio that is speech, then a mark the double echoes once it has played
    await until(() => stream.received.marks.length > 0, 'the greeting’s mark');
    const greeting = Buffer.concat(stream.received.media.map((m) => m.bytes));
    const pcm = decodeMulaw(greeting);
    const rms = Math.sqrt(pcm.reduce((s, v) => s + v * v, 0) / pcm.length);
    expect(rms).toBeGreaterThan(300);
    for (const m of stream.received.media) expect(m.bytes.byteLength).toBe(160);
    // the caller asks, after the greeting has played
    await until(() => stream.bufferedMs === 0, 'the greeting to play');
    const speech = await speakWithEspeak('Where is my parcel?');
    stream.say(resamplePcm16(speech.pcm16, speech.sampleRate, 8000));
    const turns = async () =>
      (await call(app.baseUrl, 'GET', `/api/v2/developers/sessions/${sessionId}`, { token: dev.testKey }))
        .body.data;
    await until(async () => (await turns()).turnCount === 1, 'the turn’s record', 30_000);
    const detail = await turns();
    expect(JSON.stringify(detail)).toContain('Where is my parcel?');
    expect(stt.requests.at(-1)!.audio.sampleRate).toBe(16_000);
    await stream.stop();
    await until(() => ended.includes('call_call-one'), 'the call’s end');
  }, 90_000);

  it('keypad: the keys up to the terminator, then after a pause, reach the agent as the caller’s input', async () => {
    llm.script((req) => ({ content: `You pressed ${String(req.messages.at(-1)?.content ?? '')}.` }));
    const { sessionId, stream } = await phoneCall('call-keys');
    await until(() => stream.received.marks.length > 0 && stream.bufferedMs === 0, 'the greeting to play');
    for (const key of '1234#') stream.pressKey(key);
    await until(
      async () => (await sessionDetail(sessionId)).turnCount === 1,
      'the first entry’s turn',
      30_000,
    );
    stream.pressKey('7');
    stream.pressKey('7');
    // no terminator: the entry ends after the 2 s pause
    await until(
      async () => (await sessionDetail(sessionId)).turnCount === 2,
      'the second entry’s turn',
      30_000,
    );
    const transcript = (await sessionDetail(sessionId)).transcript as {
      text: string;
      reply: { text: string };
    }[];
    expect(transcript.map((t) => t.text)).toEqual(['keypad: 1234', 'keypad: 77']);
    expect(transcript[0]!.reply.text).toBe('You pressed keypad: 1234.');
    await stream.stop();
    llm.script(undefined);
  }, 90_000);

  it('barge-in: caller speech over a long reply clears the carrier, and the turn keeps what the marks confirmed', async () => {
    const sentences = answerLongStory(12);
    const { sessionId, stream } = await phoneCall('call-two');
    await until(() => stream.received.marks.length > 0 && stream.bufferedMs === 0, 'the greeting to play');
    const ask = await speakWithEspeak('Tell me the long story.');
    await stream.say(resamplePcm16(ask.pcm16, ask.sampleRate, 8000));
    // the reply is playing: a few of its segments confirmed, then the caller talks over it
    const marksBefore = stream.received.marks.length;
    await until(() => stream.received.marks.length >= marksBefore + 2, 'two segments played', 30_000);
    stt.configure({ transcript: 'Where is my parcel?', delayMs: 50 });
    const over = await speakWithEspeak('No wait, where is my parcel?');
    await stream.say(resamplePcm16(over.pcm16, over.sampleRate, 8000));
    await until(() => stream.received.clears.length > 0, 'a clear', 20_000);
    const detail = () => sessionDetail(sessionId);
    await until(async () => (await detail()).transcript.length >= 1, 'the interrupted turn’s record', 30_000);
    const [first] = (await detail()).transcript;
    expect(first.interrupted).toBe(true);
    // heard: the segments the carrier confirmed and the one playing, a beginning of the reply
    expect(first.spokenText.length).toBeGreaterThan(0);
    expect(sentences.join(' ').startsWith(first.spokenText)).toBe(true);
    expect(first.spokenText.length).toBeLessThan(sentences.join(' ').length);
    await stream.stop();
    llm.script(undefined);
  }, 120_000);

  it('the agent’s own voice coming back (120 ms, −10 dB) over line noise interrupts nothing; the caller over it does', async () => {
    answerLongStory(10);
    const { sessionId, stream } = await phoneCall('call-echo', {
      echo: { delayMs: 120, gainDb: -10 },
      noiseDbfs: -45,
    });
    // the greeting plays over its own echo: no clear, and nothing heard becomes a turn
    await until(() => stream.received.marks.length > 0 && stream.bufferedMs === 0, 'the greeting to play');
    const transcriptionsBefore = stt.requests.length;
    const ask = await speakWithEspeak('Tell me the long story.');
    await stream.say(resamplePcm16(ask.pcm16, ask.sampleRate, 8000));
    // the long reply plays, echoed back all along: six of its segments played (their marks echoed
    // by the carrier, not only sent), never cleared
    const replyMarksPlayed = () =>
      stream.received.marks.filter((m) => !m.name.startsWith('greeting:') && m.echoedAt !== undefined).length;
    await until(() => replyMarksPlayed() >= 6, 'six segments played', 40_000);
    expect(stream.received.clears).toHaveLength(0);
    expect(stt.requests.length).toBe(transcriptionsBefore + 1);
    // the caller talks over the reply and its echo, speaking up (6 dB: the gate wants the caller
    // 6 dB above the echo, docs/telephony.md "Line noise and echo"): that interrupts
    stt.configure({ transcript: 'Where is my parcel?', delayMs: 50 });
    const over = await speakWithEspeak('No wait, where is my parcel?');
    const louder = resamplePcm16(over.pcm16, over.sampleRate, 8000).map((s) =>
      Math.max(-32768, Math.min(32767, s * 2)),
    );
    await stream.say(louder);
    await until(() => stream.received.clears.length > 0, 'a clear', 20_000);
    const detail = () => sessionDetail(sessionId);
    await until(async () => (await detail()).transcript.length >= 1, 'the interrupted turn’s record', 30_000);
    const [first] = (await detail()).transcript;
    expect(first.interrupted).toBe(true);
    expect(first.spokenText.split('Part').length - 1).toBeGreaterThanOrEqual(6);
    await stream.stop();
    llm.script(undefined);
  }, 150_000);

  it('refuses a stream whose call token it does not know', async () => {
    const { port } = wss.address() as AddressInfo;
    const stream = new TwilioMediaStream({
      url: `ws://127.0.0.1:${port}/media`,
      accountSid: `AC${'0'.repeat(32)}`,
      authToken: 'not-checked-here',
      callSid: `CA${'2'.repeat(32)}`,
      customParameters: { callToken: 'forged' },
    });
    await stream.open();
    expect(await stream.ended).toBe('platform');
    expect(stream.received.media).toHaveLength(0);
  }, 30_000);
});

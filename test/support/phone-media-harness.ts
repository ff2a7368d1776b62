import type { AddressInfo } from 'node:net';
import { WebSocketServer } from 'ws';
import { startWorker } from '../../src/app/runtime';
import { CarrierMediaCall } from '../../src/telephony/media/carrier-media-call';
import type { PhoneCallSetup } from '../../src/telephony/media/media-call-setup';
import { twilioMediaProtocol } from '../../src/telephony/twilio/media-protocol';
import type { CarrierAnsweredBy } from '../../workflows/messages';
import { TEST_ENV } from './env';
import { startLlmDouble } from './llm-double';
import { completeManifest } from './personas';
import { startSttDouble } from './stt-double';
import { call, type Developer, newDeveloper, startTestApp, type TestApp } from './test-app';
import type { LineOptions } from './twilio-double/line-signal';
import { TwilioMediaStream } from './twilio-double/media-stream';

/** Polls `check` until it holds, or fails after `ms`. */
export async function until(
  check: () => boolean | Promise<boolean>,
  what: string,
  ms = 20_000,
): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export type PhoneMediaHarness = Awaited<ReturnType<typeof startPhoneMediaHarness>>;

/**
 * A phone call's media stream over the turn engine, without the calls area: the Twilio double's
 * stream (paced μ-law frames, marks echoed once played) against CarrierMediaCall (Twilio's
 * protocol), the call's session found by a stand-in for the calls area (`connect`), and the
 * hang-ups it asks for recorded (`hungUp`). The API and a worker run in this process, with an LLM
 * and a speech-to-text double.
 */
export async function startPhoneMediaHarness(label: string, manifest = completeManifest('phone-agent')) {
  const llm = await startLlmDouble();
  const stt = await startSttDouble({ transcript: 'Where is my parcel?', delayMs: 50 });
  const app: TestApp = await startTestApp({
    LLM_BASE_URL: llm.baseUrl,
    STT_BASE_URL: stt.baseUrl,
    TEMPORAL_TASK_QUEUE: `vp-${label}-${process.pid}`,
    RATE_LIMITS: 'off',
  });
  const worker = await startWorker(app.ctx, TEST_ENV.temporalAddress(), { dispatch: false });
  const dev: Developer = await newDeveloper(app, label);
  const created = await call(app.baseUrl, 'POST', '/api/v1/developers/personas', {
    token: dev.token,
    body: { manifest },
  });
  const personaId = created.body.persona.id as string;
  const calls = new Map<string, PhoneCallSetup>();
  const ended: string[] = [];
  const hungUp: { callId: string; reason: string; at: number }[] = [];
  /** The cold transfers the calls asked for (the calls area's workflow is not here: each succeeds). */
  const transfers: { callId: string; destination: string; requestId: string; at: number }[] = [];
  /** What the carrier's answering-machine detection says of a call (by call id), when a test says. */
  const answeredBy = new Map<string, Promise<CarrierAnsweredBy | null>>();
  const streams: TwilioMediaStream[] = [];
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
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
        hungUp.push({ callId, reason, at: performance.now() });
      },
      // the carrier's verdict, when a test plays the carrier's answering-machine detection
      answeredBy: async (callId) => answeredBy.get(callId) ?? null,
      transfer: async (callId, transfer) => {
        transfers.push({ callId, ...transfer, at: performance.now() });
        return { ok: true };
      },
    });
  });

  /** The session as GET /sessions/:id shows it (its transcript). */
  const sessionDetail = async (sessionId: string) =>
    (await call(app.baseUrl, 'GET', `/api/v2/developers/sessions/${sessionId}`, { token: dev.testKey })).body
      .data;

  /** A session and its call's setup, as the calls area would give them for `callToken`. */
  async function phoneCall(
    callToken: string,
    line: LineOptions = {},
    { personaId: persona = personaId, ...setup }: Partial<PhoneCallSetup> & { personaId?: string } = {},
  ): Promise<{ sessionId: string; stream: TwilioMediaStream }> {
    const res = await call(app.baseUrl, 'POST', '/api/v2/developers/sessions', {
      token: dev.testKey,
      body: { personaId: persona, userId: '+15551230000' },
    });
    if (res.status !== 201) throw new Error(`session not started: ${JSON.stringify(res.body)}`);
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
      ...setup,
    });
    const stream = new TwilioMediaStream({
      url: `ws://127.0.0.1:${(wss.address() as AddressInfo).port}/media`,
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

  async function close() {
    await Promise.all(streams.map((s) => s.stop().catch(() => undefined)));
    wss.close();
    await worker.stop();
    await app.close();
    await stt.close();
    await llm.close();
  }

  return {
    app,
    llm,
    stt,
    dev,
    personaId,
    wss,
    calls,
    ended,
    hungUp,
    transfers,
    answeredBy,
    phoneCall,
    sessionDetail,
    close,
  };
}

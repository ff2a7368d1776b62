/**
 * @jest-environment ./test/support/native-arrays-environment.js
 */

import { readWav, resamplePcm16 } from '../src/outbound/wav';
import { decodeMulaw } from '../src/telephony/audio';
import { type CallsBench, startCallsBench } from './support/calls';
import { speakWithEspeak } from './support/espeak-speech';
import { startLlmDouble } from './support/llm-double';
import { startSttDouble } from './support/stt-double';
import { call } from './support/test-app';
import { startTwilioDouble, type TwilioDouble } from './support/twilio-double';
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
 * A phone call end to end (issue 39): the Twilio double rings the number's inboundUrl with a
 * signed voice webhook, follows the platform's <Connect><Stream> TwiML and opens the media stream
 * with a signed upgrade; the caller is greeted, asks a spoken question, is answered, and hangs up.
 */
describe('an inbound phone call end to end', () => {
  let double: TwilioDouble;
  let bench: CallsBench;
  let llm: Awaited<ReturnType<typeof startLlmDouble>>;
  let stt: Awaited<ReturnType<typeof startSttDouble>>;
  const api = (method: string, path: string) =>
    call(bench.app.baseUrl, method, `/api/v2/developers${path}`, { token: bench.dev.testKey });

  beforeAll(async () => {
    double = await startTwilioDouble();
    llm = await startLlmDouble();
    stt = await startSttDouble({ transcript: 'Where is my parcel?', delayMs: 50 });
    bench = await startCallsBench(
      double,
      { LLM_BASE_URL: llm.baseUrl, STT_BASE_URL: stt.baseUrl },
      { recordCalls: true },
    );
  }, 120_000);
  afterAll(async () => {
    await bench?.stop();
    await double?.close();
    await stt?.close();
    await llm?.close();
  });

  it('signed webhook → TwiML → stream → greeting heard → a spoken question answered → hang-up', async () => {
    const number = (await api('GET', `/phone-numbers/${bench.number.id}`)).body.data;
    const ringing = await double.dial(number.inboundUrl, {
      from: '+15551230000',
      to: number.number,
      statusCallback: number.statusCallbackUrl,
    });
    expect(ringing.webhookResponse?.body).toContain('<Connect><Stream url="ws://');
    const stream = await ringing.waitForStream(10_000);
    // greeted: speech, in 160-byte μ-law frames, its mark echoed once played
    await until(() => stream.received.marks.length > 0 && stream.bufferedMs === 0, 'the greeting', 30_000);
    const heard = decodeMulaw(Buffer.concat(stream.received.media.map((m) => m.bytes)));
    expect(Math.sqrt(heard.reduce((s, v) => s + v * v, 0) / heard.length)).toBeGreaterThan(300);
    const [inbound] = (await api('GET', '/calls?direction=inbound')).body.data;
    expect(inbound).toMatchObject({ direction: 'inbound', from: '+15551230000', status: 'in-progress' });
    expect(inbound.sessionId).toMatch(/^sess_/);
    // a spoken question, answered and recorded in the call's session
    const speech = await speakWithEspeak('Where is my parcel?');
    await stream.say(resamplePcm16(speech.pcm16, speech.sampleRate, 8000));
    const session = async () => (await api('GET', `/sessions/${inbound.sessionId}`)).body.data;
    await until(async () => (await session()).transcript.length === 1, 'the turn', 30_000);
    expect((await session()).transcript[0]).toMatchObject({
      text: 'Where is my parcel?',
      interrupted: false,
    });
    // the caller hangs up: the call completes, and its session ends
    await ringing.hangUp();
    await until(
      async () => (await api('GET', `/calls/${inbound.id}`)).body.data.status === 'completed',
      'the end',
    );
    await until(async () => (await session()).status === 'ended', 'the session’s end');
    // the recording: two channels on one timeline, the caller's question left, the agent's voice right
    const ended = (await api('GET', `/calls/${inbound.id}`)).body.data;
    expect(ended.recordingUrl).toBe(`/api/v2/developers/calls/${inbound.id}/recording`);
    const res = await fetch(`${bench.app.baseUrl}${ended.recordingUrl}`, {
      headers: { authorization: `Bearer ${bench.dev.testKey}` },
    });
    expect(res.headers.get('content-type')).toMatch(/^audio\/wav/);
    const wav = readWav(new Uint8Array(await res.arrayBuffer()));
    expect(wav).toMatchObject({ channels: 2, sampleRate: 8000 });
    const rms = (channel: 0 | 1) => {
      let sum = 0;
      for (let i = channel; i < wav.samples.length; i += 2) sum += wav.samples[i] ** 2;
      return Math.sqrt(sum / (wav.samples.length / 2));
    };
    expect(rms(0)).toBeGreaterThan(100); // the caller
    expect(rms(1)).toBeGreaterThan(100); // the agent
  }, 120_000);

  it('a media stream not signed by the number’s auth token is refused (403); a used call token opens nothing', async () => {
    const number = (await api('GET', `/phone-numbers/${bench.number.id}`)).body.data;
    const ringing = await double.dial(number.inboundUrl, {
      from: '+15551230001',
      to: number.number,
      statusCallback: number.statusCallbackUrl,
    });
    const stream = await ringing.waitForStream(10_000);
    const twiml = ringing.webhookResponse!.body;
    const url = /<Stream url="([^"]+)"/.exec(twiml)![1];
    const callToken = /<Parameter name="callToken" value="([^"]+)"/.exec(twiml)![1];
    const again = (signature: 'valid' | 'wrong') =>
      new TwilioMediaStream({
        url,
        accountSid: double.accountSid,
        authToken: double.authToken,
        callSid: ringing.sid,
        customParameters: { callToken },
        signature,
      });
    const forged = again('wrong');
    await forged.open();
    expect(await forged.ended).toBe('refused');
    expect(forged.refusedWith).toBe(403);
    // signed, but the call's token was used by the first stream: it is closed, and hears nothing
    const replayed = again('valid');
    await replayed.open();
    expect(await replayed.ended).toBe('platform');
    expect(replayed.received.media).toHaveLength(0);
    await ringing.hangUp();
    expect(stream.received.invalid).toHaveLength(0);
    // the call and its session end before the API stops (nothing of theirs is left in flight)
    const callId = /\/media\/(call_[A-Za-z0-9]+)$/.exec(url)![1];
    const ended = async () => (await api('GET', `/calls/${callId}`)).body.data;
    await until(async () => (await ended()).status === 'completed', 'the end');
    const { sessionId } = await ended();
    await until(
      async () => (await api('GET', `/sessions/${sessionId}`)).body.data?.status === 'ended',
      'the session’s end',
    );
  }, 60_000);
});

/**
 * @jest-environment ./test/support/native-arrays-environment.js
 */

import { resamplePcm16 } from '../src/outbound/wav';
import { decodeMulaw } from '../src/telephony/audio';
import { type CallsBench, startCallsBench } from './support/calls';
import { speakWithEspeak } from './support/espeak-speech';
import { startLlmDouble } from './support/llm-double';
import { startSttDouble } from './support/stt-double';
import { startTelnyxDouble, type TelnyxDouble } from './support/telnyx-double';
import { addTelnyxNumber } from './support/telnyx-double/bench';
import { TelnyxMediaStream } from './support/telnyx-double/media-stream';
import { call } from './support/test-app';

/** Polls `check` until it holds, or fails after `ms`. */
async function until(check: () => boolean | Promise<boolean>, what: string, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * An inbound Telnyx call end to end: the Telnyx double posts a signed `call.initiated` to the
 * number's inboundUrl, the platform answers it through Call Control with its stream URL and call
 * token, the double opens the PCMU media stream; the caller is greeted, asks a spoken question, is
 * answered, and hangs up.
 */
describe('an inbound Telnyx call end to end', () => {
  let double: TelnyxDouble;
  let bench: CallsBench;
  let number: Awaited<ReturnType<typeof addTelnyxNumber>>;
  let llm: Awaited<ReturnType<typeof startLlmDouble>>;
  let stt: Awaited<ReturnType<typeof startSttDouble>>;
  const api = (method: string, path: string) =>
    call(bench.app.baseUrl, method, `/api/v2/developers${path}`, { token: bench.dev.testKey });

  beforeAll(async () => {
    double = await startTelnyxDouble();
    llm = await startLlmDouble();
    stt = await startSttDouble({ transcript: 'Where is my parcel?', delayMs: 50 });
    bench = await startCallsBench(undefined, {
      TELNYX_API_BASE_URL: double.baseUrl,
      LLM_BASE_URL: llm.baseUrl,
      STT_BASE_URL: stt.baseUrl,
    });
    number = await addTelnyxNumber(bench, double);
  }, 120_000);
  afterAll(async () => {
    await double?.close();
    await bench?.stop();
    await stt?.close();
    await llm?.close();
  });

  it('signed call.initiated → answered with its stream → greeting heard → a spoken question answered → hang-up', async () => {
    const ringing = await double.dial(number.inboundUrl, { from: '+15551230000', to: number.number });
    const initiated = ringing.webhooks[0]!;
    expect(initiated.status).toBe(204);
    expect(ringing.commands).toEqual([
      {
        action: 'answer',
        body: expect.objectContaining({
          command_id: initiated.eventId,
          client_state: expect.any(String),
          stream_url: expect.stringMatching(
            /^ws:\/\/127\.0\.0\.1:\d+\/api\/v2\/telephony\/telnyx\/media\/call_\w+$/,
          ),
          stream_track: 'inbound_track',
          stream_bidirectional_mode: 'rtp',
          stream_bidirectional_codec: 'PCMU',
        }),
      },
    ]);
    const stream = await ringing.waitForStream(10_000);
    await until(() => stream.received.marks.length > 0 && stream.bufferedMs === 0, 'the greeting', 30_000);
    const heard = decodeMulaw(Buffer.concat(stream.received.media.map((m) => m.bytes)));
    expect(Math.sqrt(heard.reduce((s, v) => s + v * v, 0) / heard.length)).toBeGreaterThan(300);
    const [inbound] = (await api('GET', '/calls?direction=inbound')).body.data;
    expect(inbound).toMatchObject({
      direction: 'inbound',
      from: '+15551230000',
      to: number.number,
      status: 'in-progress',
      carrierCallId: ringing.callControlId,
    });
    expect(inbound.sessionId).toMatch(/^sess_/);
    // Telnyx delivers call.initiated again: the same event, skipped; nothing new, nothing answered twice
    expect((await double.webhooks.redeliver(initiated)).status).toBe(204);
    expect((await api('GET', '/calls?direction=inbound')).body.data).toHaveLength(1);
    expect(ringing.commands).toHaveLength(1);
    // a spoken question, answered and recorded in the call's session
    const speech = await speakWithEspeak('Where is my parcel?');
    const before = stream.received.media.length;
    await stream.say(resamplePcm16(speech.pcm16, speech.sampleRate, 8000));
    const session = async () => (await api('GET', `/sessions/${inbound.sessionId}`)).body.data;
    await until(async () => (await session()).transcript.length === 1, 'the turn', 30_000);
    expect((await session()).transcript[0]).toMatchObject({
      text: 'Where is my parcel?',
      interrupted: false,
    });
    expect(stream.received.media.length).toBeGreaterThan(before);
    expect(stream.received.invalid).toHaveLength(0);
    // a second stream with the call's token (Telnyx signs no upgrade): the token was taken, it hears nothing
    const replayed = new TelnyxMediaStream({
      url: ringing.setup.streamUrl!,
      userId: double.userId,
      callControlId: ringing.callControlId,
      callSessionId: ringing.callSessionId,
      from: '+15551230000',
      to: number.number,
      clientState: ringing.setup.clientState,
    });
    await replayed.open();
    expect(await replayed.ended).toBe('platform');
    expect(replayed.received.media).toHaveLength(0);
    // the caller hangs up: the call completes, and its session ends
    await ringing.hangUp();
    await until(
      async () => (await api('GET', `/calls/${inbound.id}`)).body.data.status === 'completed',
      'the end',
    );
    await until(async () => (await session()).status === 'ended', 'the session’s end');
    expect(ringing.webhooks.every((w) => w.status === 204)).toBe(true);
  }, 120_000);
});

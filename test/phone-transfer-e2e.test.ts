/**
 * @jest-environment ./test/support/native-arrays-environment.js
 */
import { resamplePcm16 } from '../src/outbound/wav';
import { type CallsBench, callEvents, setNumberPersona, startCallsBench } from './support/calls';
import { speakWithEspeak } from './support/espeak-speech';
import { startLlmDouble } from './support/llm-double';
import { completeManifest } from './support/personas';
import { until } from './support/phone-media-harness';
import { startSttDouble } from './support/stt-double';
import { call } from './support/test-app';
import { startTwilioDouble, type TwilioDouble } from './support/twilio-double';

const DESK = '+14155550188';

/**
 * A cold transfer end to end (issue 42 item 1): the agent's `transfer_call` reaches the call's
 * workflow, which updates the call at the Twilio double with `<Dial><Number>` TwiML (the double
 * stops the media stream and puts the caller through), emits `call.transferred` once, and the call
 * ends `transferred` when the caller hangs up.
 */
describe('a phone call transferred to a listed number', () => {
  let double: TwilioDouble;
  let bench: CallsBench;
  let llm: Awaited<ReturnType<typeof startLlmDouble>>;
  let stt: Awaited<ReturnType<typeof startSttDouble>>;
  const api = (method: string, path: string) =>
    call(bench.app.baseUrl, method, `/api/v2/developers${path}`, { token: bench.dev.testKey });

  beforeAll(async () => {
    double = await startTwilioDouble();
    llm = await startLlmDouble();
    stt = await startSttDouble({ transcript: 'A question about my invoice', delayMs: 50 });
    bench = await startCallsBench(double, { LLM_BASE_URL: llm.baseUrl, STT_BASE_URL: stt.baseUrl });
    const manifest = {
      ...completeManifest('transfer-agent'),
      telephony: {
        transferDestinations: [{ destination: DESK, name: 'Billing desk', description: 'Invoices' }],
      },
    };
    await setNumberPersona(bench, manifest);
    llm.script((req) =>
      String(req.messages.at(-1)?.content).includes('invoice')
        ? {
            content: 'Let me put you through to billing.',
            tool_calls: [{ id: 'call_t', name: 'transfer_call', arguments: { destination: DESK } }],
          }
        : { content: 'Okay.' },
    );
  }, 120_000);
  afterAll(async () => {
    await bench?.stop();
    await double?.close();
    await stt?.close();
    await llm?.close();
  });

  it('<Dial> at the carrier after the words played, call.transferred once, the call ends transferred', async () => {
    const number = (await api('GET', `/phone-numbers/${bench.number.id}`)).body.data;
    const ringing = await double.dial(number.inboundUrl, {
      from: '+15551230000',
      to: number.number,
      statusCallback: number.statusCallbackUrl,
    });
    const stream = await ringing.waitForStream(10_000);
    await until(() => stream.received.marks.length > 0 && stream.bufferedMs === 0, 'the greeting', 30_000);
    const speech = await speakWithEspeak('A question about my invoice');
    await stream.say(resamplePcm16(speech.pcm16, speech.sampleRate, 8000));
    await until(() => ringing.dialed.length > 0, 'the transfer at the carrier', 30_000);
    expect(ringing.dialed).toEqual([{ destination: DESK, callerId: number.number, at: expect.any(Number) }]);
    expect(ringing.twiml.at(-1)).toContain(
      `<Dial callerId="${number.number}"><Number>${DESK}</Number></Dial>`,
    );
    // the stream was stopped by the carrier: the agent is off the line
    expect(await stream.ended).toBe('carrier');
    // the caller talks with the desk now: the platform hangs nothing up
    await new Promise((r) => setTimeout(r, 1500));
    expect(ringing.status).toBe('in-progress');
    expect(ringing.endedAt).toBeUndefined();
    const [inbound] = (await api('GET', '/calls?direction=inbound')).body.data;
    await ringing.hangUp();
    await until(
      async () => (await api('GET', `/calls/${inbound.id}`)).body.data.status === 'completed',
      'the end',
    );
    expect((await api('GET', `/calls/${inbound.id}`)).body.data.endedReason).toBe('transferred');
    const events = await callEvents(bench, inbound.id);
    expect(events.map((e) => e.type)).toEqual(['call.ended', 'call.started', 'call.transferred']);
    expect(events[2]!.data).toMatchObject({ callId: inbound.id, destination: DESK });
    const session = (await api('GET', `/sessions/${inbound.sessionId}`)).body.data;
    expect(session.transcript[0].actions).toEqual([
      expect.objectContaining({ tool: 'transfer_call', toolId: 'call/transfer_call', success: true }),
    ]);
  }, 120_000);
});

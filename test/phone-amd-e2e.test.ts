/**
 * @jest-environment ./test/support/native-arrays-environment.js
 */
import { type CallsBench, startCallsBench } from './support/calls';
import { startLlmDouble } from './support/llm-double';
import { completeManifest } from './support/personas';
import { until } from './support/phone-media-harness';
import { startSttDouble } from './support/stt-double';
import { call } from './support/test-app';
import { startTwilioDouble, type TwilioDouble } from './support/twilio-double';

/**
 * Twilio's answering-machine detection on an outbound call (issue 42 item 3): the platform places
 * the call with `MachineDetection=DetectMessageEnd` and `AsyncAmd=true`; the double posts the signed
 * `AnsweredBy` callback into the call's workflow; the call's stream, waiting for it, leaves the
 * voicemail message on a machine (the call ends `voicemail`) and greets a person. A callback with a
 * bad signature is refused (403) and changes nothing.
 */
describe('Twilio answering-machine detection', () => {
  let double: TwilioDouble;
  let bench: CallsBench;
  let llm: Awaited<ReturnType<typeof startLlmDouble>>;
  let stt: Awaited<ReturnType<typeof startSttDouble>>;
  const api = (method: string, path: string, body?: unknown) =>
    call(bench.app.baseUrl, method, `/api/v2/developers${path}`, { token: bench.dev.testKey, body });

  beforeAll(async () => {
    double = await startTwilioDouble();
    llm = await startLlmDouble();
    stt = await startSttDouble({ transcript: 'Hello?', delayMs: 50 });
    bench = await startCallsBench(double, { LLM_BASE_URL: llm.baseUrl, STT_BASE_URL: stt.baseUrl });
    const { personaId } = (await api('GET', `/phone-numbers/${bench.number.id}`)).body.data;
    const updated = await call(bench.app.baseUrl, 'PUT', `/api/v1/developers/personas/${personaId}`, {
      token: bench.dev.token,
      body: {
        manifest: {
          ...completeManifest('amd-agent'),
          telephony: { voicemailMessage: 'Hi {{name}}, this is Ava from Homegoods. Please call us back.' },
        },
      },
    });
    expect(updated.status).toBe(200);
  }, 120_000);
  afterAll(async () => {
    await bench?.stop();
    await double?.close();
    await stt?.close();
    await llm?.close();
  });

  const callOf = async (id: string) => (await api('GET', `/calls/${id}`)).body.data;

  it('a machine: the message after the verdict, then voicemail; the request asked for async AMD', async () => {
    const to = '+14155550171';
    double.script({ outcome: 'answer', ringMs: 100, answeredBy: 'machine_end_beep', amdMs: 1500 }, to);
    const placed = await api('POST', '/calls', {
      phoneNumberId: bench.number.id,
      to,
      variables: { name: 'Sam' },
    });
    expect(placed.status).toBe(201);
    // placed by the call's workflow, after the 201
    const placing = () => double.requests.find((r) => r.method === 'POST' && r.params.To === to);
    await until(() => placing() !== undefined, 'the placing request', 20_000);
    const request = placing()!;
    expect(request.params).toMatchObject({ MachineDetection: 'DetectMessageEnd', AsyncAmd: 'true' });
    expect(request.params.AsyncAmdStatusCallback).toMatch(/\/api\/v2\/telephony\/twilio\/answered-by\/pn_/);
    await until(async () => (await callOf(placed.body.data.id)).status === 'completed', 'the end', 40_000);
    expect((await callOf(placed.body.data.id)).endedReason).toBe('voicemail');
    const doubleCall = double.calls.find((c) => c.setup.to === to)!;
    expect(doubleCall.amdCallbacks.map((c) => c.status)).toEqual([204]);
    // nothing played before the verdict; the message after it
    const amdAt = doubleCall.answeredAt! + 1500;
    expect(doubleCall.stream!.received.media.length).toBeGreaterThan(0);
    expect(doubleCall.stream!.received.marks.some((m) => m.name.startsWith('greeting'))).toBe(false);
    expect(doubleCall.stream!.received.marks.some((m) => m.name.startsWith('closing:'))).toBe(true);
    expect(Date.now()).toBeGreaterThan(amdAt);
  }, 90_000);

  it('a person: greeted once the carrier says human; a forged verdict is refused', async () => {
    const to = '+14155550172';
    double.script({ outcome: 'answer', ringMs: 100, answeredBy: 'human', amdMs: 800 }, to);
    const placed = await api('POST', '/calls', { phoneNumberId: bench.number.id, to });
    const doubleCall = await until(() => double.calls.some((c) => c.setup.to === to), 'the call').then(
      () => double.calls.find((c) => c.setup.to === to)!,
    );
    const stream = await doubleCall.waitForStream(20_000);
    await until(
      () => stream.received.marks.some((m) => m.name.startsWith('greeting')),
      'the greeting',
      30_000,
    );
    const forged = await fetch(doubleCall.setup.asyncAmdStatusCallback!, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': 'forged' },
      body: new URLSearchParams({ CallSid: doubleCall.sid, AnsweredBy: 'machine_end_beep' }).toString(),
    });
    expect(forged.status).toBe(403);
    await doubleCall.hangUp();
    await until(async () => (await callOf(placed.body.data.id)).status === 'completed', 'the end', 30_000);
    expect((await callOf(placed.body.data.id)).endedReason).toBe('completed');
  }, 90_000);
});

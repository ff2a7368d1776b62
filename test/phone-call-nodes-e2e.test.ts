/**
 * @jest-environment ./test/support/native-arrays-environment.js
 */
import { resamplePcm16 } from '../src/outbound/wav';
import { type CallsBench, setNumberPersona, startCallsBench } from './support/calls';
import { speakWithEspeak } from './support/espeak-speech';
import { completeManifest } from './support/personas';
import { until } from './support/phone-media-harness';
import { startSttDouble } from './support/stt-double';
import { call } from './support/test-app';
import { startTwilioDouble, type TwilioDouble } from './support/twilio-double';

const DESK = '+14155550188';

/** start → each of `nodes` in turn → end. */
function linear(nodes: { id: string; type: string; config?: Record<string, unknown> }[]) {
  const all = [{ id: 'start', type: 'start' }, ...nodes, { id: 'end', type: 'end' }];
  return { nodes: all, edges: all.slice(1).map((n, i) => ({ sourceId: all[i]!.id, targetId: n.id })) };
}

/**
 * Voice commands whose graphs end or transfer the call, end to end through the calls area and the
 * Twilio double (issue 42 item 1): `speak → end_call` hangs up after the speech, the call ending
 * `agent_ended`; `speak → transfer_call` to a listed number updates the call with `<Dial>` (cold)
 * and the call ends `transferred`.
 */
describe('call nodes on a phone call, through the carrier', () => {
  let double: TwilioDouble;
  let bench: CallsBench;
  let stt: Awaited<ReturnType<typeof startSttDouble>>;
  const api = (method: string, path: string, body?: unknown) =>
    call(bench.app.baseUrl, method, `/api/v2/developers${path}`, { token: bench.dev.testKey, body });

  beforeAll(async () => {
    double = await startTwilioDouble();
    stt = await startSttDouble({ transcript: 'Put me through to billing', delayMs: 50 });
    bench = await startCallsBench(double, { STT_BASE_URL: stt.baseUrl });
    const manifest = {
      ...completeManifest('call-nodes-agent'),
      telephony: {
        transferDestinations: [{ destination: DESK, name: 'Billing desk', description: 'Invoices' }],
      },
    };
    await setNumberPersona(bench, manifest);
    for (const [name, command, graph] of [
      [
        'Billing transfer',
        'put me through to billing',
        linear([
          { id: 'say', type: 'speak', config: { text: 'Putting you through to billing.' } },
          { id: 'desk', type: 'transfer_call', config: { destination: DESK, summary: 'About an invoice' } },
        ]),
      ],
      [
        'Goodbye',
        'that is all goodbye',
        linear([
          { id: 'say', type: 'speak', config: { text: 'Goodbye!' } },
          { id: 'bye', type: 'end_call' },
        ]),
      ],
    ] as const) {
      const res = await api('POST', '/workflows', {
        name,
        trigger: { type: 'voice_command', config: { command } },
        ...graph,
      });
      expect([name, res.status]).toEqual([name, 201]);
    }
  }, 120_000);
  afterAll(async () => {
    await bench?.stop();
    await double?.close();
    await stt?.close();
  });

  /** An inbound call, answered and greeted; the caller then says `words`. */
  async function callSaying(words: string) {
    const number = (await api('GET', `/phone-numbers/${bench.number.id}`)).body.data;
    const ringing = await double.dial(number.inboundUrl, {
      from: '+15551230000',
      to: number.number,
      statusCallback: number.statusCallbackUrl,
    });
    const stream = await ringing.waitForStream(10_000);
    await until(() => stream.received.marks.length > 0 && stream.bufferedMs === 0, 'the greeting', 30_000);
    stt.configure({ transcript: words, delayMs: 50 });
    const speech = await speakWithEspeak(words);
    await stream.say(resamplePcm16(speech.pcm16, speech.sampleRate, 8000));
    const inbound = (await api('GET', '/calls?direction=inbound')).body.data.find(
      (c: { carrierCallId: string }) => c.carrierCallId === ringing.sid,
    );
    return { number, ringing, stream, inbound: inbound as { id: string; sessionId: string } };
  }

  const callOf = async (id: string) => (await api('GET', `/calls/${id}`)).body.data;

  it('speak → transfer_call: <Dial> at the carrier after the words played, the call ends transferred', async () => {
    const { number, ringing, stream, inbound } = await callSaying('Put me through to billing');
    await until(() => ringing.dialed.length > 0, 'the transfer at the carrier', 30_000);
    const dialledAt = performance.now();
    expect(ringing.dialed).toEqual([{ destination: DESK, callerId: number.number, at: expect.any(Number) }]);
    expect(ringing.twiml.at(-1)).toContain(
      `<Dial callerId="${number.number}"><Number>${DESK}</Number></Dial>`,
    );
    const said = stream.received.marks.filter((m) => !m.name.startsWith('greeting'));
    expect(said.length).toBeGreaterThan(0);
    for (const mark of said) expect(mark.echoedAt).toBeLessThanOrEqual(dialledAt);
    expect(await stream.ended).toBe('carrier');
    await ringing.hangUp();
    await until(async () => (await callOf(inbound.id)).status === 'completed', 'the end');
    expect((await callOf(inbound.id)).endedReason).toBe('transferred');
    const session = (await api('GET', `/sessions/${inbound.sessionId}`)).body.data;
    expect(session.transcript[0].reply.text).toBe('Putting you through to billing.');
    expect(session.transcript[0].actions).toEqual([
      expect.objectContaining({ type: 'workflow', workflowName: 'Billing transfer', status: 'completed' }),
      expect.objectContaining({
        tool: 'transfer_call',
        toolId: 'call/transfer_call',
        arguments: { destination: DESK, mode: 'cold', summary: 'About an invoice' },
        success: true,
      }),
    ]);
  }, 120_000);

  it('speak → end_call: the goodbye plays, then the call hangs up and ends agent_ended', async () => {
    const { ringing, stream, inbound } = await callSaying('That is all, goodbye');
    expect(await stream.ended).toBeDefined();
    const endedAt = performance.now();
    const said = stream.received.marks.filter((m) => !m.name.startsWith('greeting'));
    expect(said.length).toBeGreaterThan(0);
    for (const mark of said) expect(mark.echoedAt).toBeLessThanOrEqual(endedAt);
    await ringing.ended;
    await until(async () => (await callOf(inbound.id)).endedReason !== null, 'the call’s end');
    expect(await callOf(inbound.id)).toMatchObject({ status: 'completed', endedReason: 'agent_ended' });
    expect(ringing.dialed).toEqual([]);
    await until(
      async () => (await api('GET', `/sessions/${inbound.sessionId}`)).body.data.transcript.length === 1,
      'the turn’s record',
    );
    const session = (await api('GET', `/sessions/${inbound.sessionId}`)).body.data;
    expect(session.transcript[0].reply.text).toBe('Goodbye!');
    expect(session.transcript[0].actions).toEqual([
      expect.objectContaining({ type: 'workflow', workflowName: 'Goodbye', status: 'completed' }),
      expect.objectContaining({ tool: 'end_call', toolId: 'call/end_call', success: true }),
    ]);
  }, 120_000);
});

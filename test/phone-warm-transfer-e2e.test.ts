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
import type { DialedPartyScript } from './support/twilio-double/call-requests';

const DESK = '+14155550188';
const SUMMARY = 'Caller Ann asks about invoice 42, charged twice.';

/**
 * Warm transfers end to end (issue 42 item 1): the agent's `transfer_call` with `mode: "warm"`
 * updates the call at the Twilio double with `<Dial action><Number url>`: the desk hears the
 * summary (the whisper) before the caller is put through, which is the transfer (`call.transferred`);
 * a desk that does not answer brings the caller back to the agent on a new media stream, where the
 * agent says so and the conversation goes on.
 */
describe('a warm transfer', () => {
  let double: TwilioDouble;
  let bench: CallsBench;
  let llm: Awaited<ReturnType<typeof startLlmDouble>>;
  let stt: Awaited<ReturnType<typeof startSttDouble>>;
  /** What the caller says, as the speech-to-text double hears it. */
  let heard = 'A question about my invoice';
  const api = (method: string, path: string) =>
    call(bench.app.baseUrl, method, `/api/v2/developers${path}`, { token: bench.dev.testKey });

  beforeAll(async () => {
    double = await startTwilioDouble();
    llm = await startLlmDouble();
    stt = await startSttDouble({ transcript: () => heard, delayMs: 50 });
    bench = await startCallsBench(double, { LLM_BASE_URL: llm.baseUrl, STT_BASE_URL: stt.baseUrl });
    const manifest = {
      ...completeManifest('warm-transfer-agent'),
      telephony: {
        transferDestinations: [{ destination: DESK, name: 'the billing desk', description: 'Invoices' }],
      },
    };
    await setNumberPersona(bench, manifest);
    llm.script((req) => {
      return String(req.messages.at(-1)?.content).includes('invoice')
        ? {
            content: 'Let me get billing on the line.',
            tool_calls: [
              {
                id: 'call_w',
                name: 'transfer_call',
                arguments: { destination: DESK, mode: 'warm', summary: SUMMARY },
              },
            ],
          }
        : { content: 'Okay.' };
    });
  }, 120_000);
  afterAll(async () => {
    await bench?.stop();
    await double?.close();
    await stt?.close();
    await llm?.close();
  });

  /** An inbound call whose caller asks about an invoice; the desk behaves as `dialed` says. */
  async function callAndAsk(dialed: DialedPartyScript) {
    const number = (await api('GET', `/phone-numbers/${bench.number.id}`)).body.data;
    const ringing = await double.dial(number.inboundUrl, {
      from: '+15551230000',
      to: number.number,
      statusCallback: number.statusCallbackUrl,
      script: { dialed },
    });
    const stream = await ringing.waitForStream(10_000);
    await until(() => stream.received.marks.length > 0 && stream.bufferedMs === 0, 'the greeting', 30_000);
    const speech = await speakWithEspeak('A question about my invoice');
    await stream.say(resamplePcm16(speech.pcm16, speech.sampleRate, 8000));
    await until(() => ringing.dialed.length > 0, 'the transfer at the carrier', 30_000);
    const calls = (await api('GET', '/calls?direction=inbound&limit=100')).body.data as {
      id: string;
      carrierCallId: string | null;
    }[];
    const callId = calls.find((c) => c.carrierCallId === ringing.sid)!.id;
    return { number, ringing, stream, callId };
  }

  it('the desk hears the summary, then the caller; call.transferred; the call ends transferred', async () => {
    const { number, ringing, stream, callId } = await callAndAsk({
      outcome: 'answer',
      ringMs: 300,
      talkMs: 2000,
    });
    expect(ringing.twiml.at(-1)).toMatch(
      new RegExp(
        `<Dial callerId="\\${number.number}" action="[^"]+/transfer/dial-ended/${bench.number.id}\\?callId=${callId}&amp;transfer=[^"]+" timeout="20"><Number url="[^"]+/transfer/whisper/${bench.number.id}\\?[^"]+">\\${DESK}</Number></Dial>`,
      ),
    );
    expect(await stream.ended).toBe('carrier');
    // the carrier's requests are signed: a forged "nobody answered" or whisper does nothing
    const action = /action="([^"]+)"/.exec(ringing.twiml.at(-1)!)![1]!.replaceAll('&amp;', '&');
    const whisper = /url="([^"]+)"/.exec(ringing.twiml.at(-1)!)![1]!.replaceAll('&amp;', '&');
    for (const url of [action, whisper]) {
      const forged = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'X-Twilio-Signature': 'forged' },
        body: new URLSearchParams({ CallSid: ringing.sid, DialCallStatus: 'no-answer' }).toString(),
      });
      expect(forged.status).toBe(403);
    }
    await until(() => ringing.whispers.length > 0, 'the whisper', 10_000);
    expect(ringing.whispers).toEqual([SUMMARY]);
    await until(
      async () => (await callEvents(bench, callId)).some((e) => e.type === 'call.transferred'),
      'call.transferred',
    );
    // bridged: the platform hangs nothing up while they talk
    expect(ringing.status).toBe('in-progress');
    await until(
      async () => (await api('GET', `/calls/${callId}`)).body.data.status === 'completed',
      'the end after the desk hung up',
      20_000,
    );
    const ended = (await api('GET', `/calls/${callId}`)).body.data;
    expect(ended.endedReason).toBe('transferred');
    const events = await callEvents(bench, callId);
    expect(events.map((e) => e.type)).toEqual(['call.ended', 'call.started', 'call.transferred']);
    expect(events[2]!.data).toMatchObject({ callId, destination: DESK });
    expect(ringing.streams).toHaveLength(1);
  }, 120_000);

  it('a desk that does not answer: the caller is back with the agent, who says so and goes on', async () => {
    const { ringing, callId } = await callAndAsk({ outcome: 'no-answer', ringMs: 500 });
    await until(() => ringing.streams.length === 2, 'the caller back on a new stream', 20_000);
    const back = ringing.streams[1]!;
    // the agent speaks first on the new stream: why the transfer did not happen
    await until(() => back.received.marks.length > 0 && back.bufferedMs === 0, 'the return line', 30_000);
    expect(ringing.whispers).toEqual([]);
    expect((await callEvents(bench, callId)).map((e) => e.type)).not.toContain('call.transferred');
    expect(ringing.status).toBe('in-progress');
    // the conversation goes on: another turn on the new stream
    heard = 'Thanks, never mind then';
    const speech = await speakWithEspeak('Thanks, never mind then');
    const marksBefore = back.received.marks.length;
    await back.say(resamplePcm16(speech.pcm16, speech.sampleRate, 8000));
    await until(
      () => back.received.marks.length > marksBefore,
      'the agent answers on the new stream',
      30_000,
    );
    await ringing.hangUp();
    await until(
      async () => (await api('GET', `/calls/${callId}`)).body.data.status === 'completed',
      'the end',
    );
    const ended = (await api('GET', `/calls/${callId}`)).body.data;
    expect(ended.endedReason).not.toBe('transferred');
    const session = (await api('GET', `/sessions/${ended.sessionId}`)).body.data;
    expect(session.transcript.length).toBeGreaterThanOrEqual(2);
    expect(session.transcript[0].actions).toEqual([
      expect.objectContaining({ tool: 'transfer_call', toolId: 'call/transfer_call', success: true }),
    ]);
  }, 120_000);
});

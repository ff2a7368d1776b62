/**
 * @jest-environment ./test/support/native-arrays-environment.js
 */
import { resamplePcm16 } from '../src/outbound/wav';
import { speakWithEspeak } from './support/espeak-speech';
import { soxBeep } from './support/phone-audio-tools';
import { type PhoneMediaHarness, startPhoneMediaHarness, until } from './support/phone-media-harness';

const MESSAGE = 'Hi Sam, this is Ava from Homegoods about your order. Please call us back.';

/**
 * The platform's own answering-machine detection on an outbound call (issue 42 item 3): a machine's
 * greeting (eSpeak) and its beep (sox, 1 kHz) → the persona's voicemail message is left after the
 * beep and the call hangs up as `voicemail`; a person's "Hello?" → the agent greets and converses.
 */
describe('voicemail on an outbound call', () => {
  let h: PhoneMediaHarness;
  beforeAll(async () => {
    h = await startPhoneMediaHarness('voicemail');
  }, 120_000);
  afterAll(() => h?.close());

  const spoken = async (words: string) => {
    const speech = await speakWithEspeak(words);
    return resamplePcm16(speech.pcm16, speech.sampleRate, 8000);
  };

  it('a machine: nothing said over its greeting, the message left after the beep, hung up as voicemail', async () => {
    const greeting = "You've reached Sam, leave a message after the tone";
    h.stt.configure({ transcript: greeting, delayMs: 50 });
    const { stream } = await h.phoneCall('machine', {}, { answeringMachine: { message: MESSAGE } });
    await stream.say(await spoken(greeting));
    await stream.say(new Int16Array(2400)); // 300 ms
    await stream.say(soxBeep(1000, 0.5, 8000));
    const beepEnded = performance.now();
    await until(() => h.hungUp.some((u) => u.callId === 'call_machine'), 'the hang-up', 30_000);
    const hangUp = h.hungUp.find((u) => u.callId === 'call_machine')!;
    expect(hangUp.reason).toBe('voicemail');
    // the agent said nothing until the beep was over: no greeting, then the message, played whole
    expect(stream.received.marks.filter((m) => m.name.startsWith('greeting'))).toEqual([]);
    expect(stream.received.media[0]!.at).toBeGreaterThanOrEqual(beepEnded - 20);
    const message = stream.received.marks.filter((m) => m.name.startsWith('closing:'));
    expect(message.length).toBeGreaterThan(0);
    for (const mark of message) expect(mark.echoedAt).toBeLessThanOrEqual(hangUp.at);
    // none of the machine's words became a turn
    expect(h.llm.requests.filter((r) => JSON.stringify(r.messages).includes('reached Sam'))).toEqual([]);
  }, 90_000);

  it('a person: "Hello?" is answered with the greeting, then the call goes on as a conversation', async () => {
    h.stt.configure({ transcript: 'Hello?', delayMs: 50 });
    const { sessionId, stream } = await h.phoneCall('person', {}, { answeringMachine: { message: MESSAGE } });
    await stream.say(await spoken('Hello?'));
    await until(
      () => stream.received.marks.some((m) => m.name.startsWith('greeting') && m.echoedAt !== undefined),
      'the greeting to play',
      30_000,
    );
    await until(() => stream.bufferedMs === 0, 'the greeting to end');
    h.stt.configure({ transcript: 'Where is my parcel?', delayMs: 50 });
    await stream.say(await spoken('Where is my parcel?'));
    await until(async () => (await h.sessionDetail(sessionId)).turnCount === 1, 'the turn', 30_000);
    const { transcript } = await h.sessionDetail(sessionId);
    expect(transcript.map((t: { text: string }) => t.text)).toEqual(['Where is my parcel?']);
    expect(h.hungUp.filter((u) => u.callId === 'call_person')).toEqual([]);
  }, 90_000);

  it('the carrier’s detection decides when it has one: a machine gets the message, a person the greeting', async () => {
    // a machine: nothing is said while it talks; once the carrier's verdict comes, the message
    h.stt.configure({ transcript: 'Hi, this is Sam', delayMs: 50 });
    let verdictNow!: () => void;
    h.answeredBy.set(
      'call_carrier-machine',
      new Promise((resolve) => {
        verdictNow = () => resolve({ answeredBy: 'machine', beep: true });
      }),
    );
    const machine = await h.phoneCall(
      'carrier-machine',
      {},
      { answeringMachine: { message: MESSAGE, carrierDetects: true } },
    );
    // a short greeting, which the platform's own detection would take for a person
    await machine.stream.say(await spoken('Hi, this is Sam'));
    await new Promise((r) => setTimeout(r, 1500));
    expect(machine.stream.received.media).toEqual([]);
    const saidAt = performance.now();
    verdictNow();
    await until(() => h.hungUp.some((u) => u.callId === 'call_carrier-machine'), 'the hang-up', 30_000);
    expect(h.hungUp.find((u) => u.callId === 'call_carrier-machine')!.reason).toBe('voicemail');
    expect(machine.stream.received.media[0]!.at).toBeGreaterThanOrEqual(saidAt);
    expect(machine.stream.received.marks.filter((m) => m.name.startsWith('greeting'))).toEqual([]);

    // a person, by the carrier's word
    h.answeredBy.set('call_carrier-person', Promise.resolve({ answeredBy: 'human', beep: false }));
    const person = await h.phoneCall(
      'carrier-person',
      {},
      { answeringMachine: { message: MESSAGE, carrierDetects: true } },
    );
    await until(
      () => person.stream.received.marks.some((m) => m.name.startsWith('greeting')),
      'the greeting',
      30_000,
    );
    expect(h.hungUp.filter((u) => u.callId === 'call_carrier-person')).toEqual([]);
  }, 90_000);
});

/**
 * @jest-environment ./test/support/native-arrays-environment.js
 */

import type { AddressInfo } from 'node:net';
import { resamplePcm16 } from '../src/outbound/wav';
import { decodeMulaw } from '../src/telephony/audio';
import { speakWithEspeak } from './support/espeak-speech';
import { type PhoneMediaHarness, startPhoneMediaHarness, until } from './support/phone-media-harness';
import { call } from './support/test-app';
import { TwilioMediaStream } from './support/twilio-double/media-stream';

/**
 * A phone call's media stream over the turn engine (issue 39 items 2 and 5): the Twilio double's
 * stream (paced μ-law frames of eSpeak speech, marks echoed once played) against CarrierMediaCall (Twilio's protocol),
 * with the call's session found by a stand-in for the calls area (its `connect`).
 */
describe('a phone call’s media stream', () => {
  let h: PhoneMediaHarness;
  beforeAll(async () => {
    h = await startPhoneMediaHarness('phone-media');
  }, 120_000);
  afterAll(() => h?.close());
  const phoneCall: PhoneMediaHarness['phoneCall'] = (...args) => h.phoneCall(...args);
  const sessionDetail: PhoneMediaHarness['sessionDetail'] = (id) => h.sessionDetail(id);

  /**
   * The caller will ask for "the long story", and the model answers it with `count` sentences
   * (anything else with "Okay."): the sentences.
   */
  function answerLongStory(count: number): string[] {
    const sentences = Array.from(
      { length: count },
      (_, i) => `Part ${i + 1} of the answer is about your parcel.`,
    );
    h.llm.script((req) =>
      String(req.messages.at(-1)?.content ?? '').includes('long')
        ? { content: sentences.join(' ') }
        : { content: 'Okay.' },
    );
    h.stt.configure({ transcript: 'Tell me the long story', delayMs: 50 });
    return sentences;
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
      (await call(h.app.baseUrl, 'GET', `/api/v2/developers/sessions/${sessionId}`, { token: h.dev.testKey }))
        .body.data;
    await until(async () => (await turns()).turnCount === 1, 'the turn’s record', 30_000);
    const detail = await turns();
    expect(JSON.stringify(detail)).toContain('Where is my parcel?');
    expect(h.stt.requests.at(-1)!.audio.sampleRate).toBe(16_000);
    await stream.stop();
    await until(() => h.ended.includes('call_call-one'), 'the call’s end');
  }, 90_000);

  it('keypad: the keys up to the terminator, then after a pause, reach the agent as the caller’s input', async () => {
    h.llm.script((req) => ({ content: `You pressed ${String(req.messages.at(-1)?.content ?? '')}.` }));
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
    h.llm.script(undefined);
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
    h.stt.configure({ transcript: 'Where is my parcel?', delayMs: 50 });
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
    h.llm.script(undefined);
  }, 120_000);

  it('the agent’s own voice coming back (120 ms, −10 dB) over line noise interrupts nothing; the caller over it does', async () => {
    answerLongStory(10);
    const { sessionId, stream } = await phoneCall('call-echo', {
      echo: { delayMs: 120, gainDb: -10 },
      noiseDbfs: -45,
    });
    // the greeting plays over its own echo: no clear, and nothing heard becomes a turn
    await until(() => stream.received.marks.length > 0 && stream.bufferedMs === 0, 'the greeting to play');
    const transcriptionsBefore = h.stt.requests.length;
    const ask = await speakWithEspeak('Tell me the long story.');
    await stream.say(resamplePcm16(ask.pcm16, ask.sampleRate, 8000));
    // the long reply plays, echoed back all along: six of its segments played (their marks echoed
    // by the carrier, not only sent), never cleared
    const replyMarksPlayed = () =>
      stream.received.marks.filter((m) => !m.name.startsWith('greeting:') && m.echoedAt !== undefined).length;
    await until(() => replyMarksPlayed() >= 6, 'six segments played', 40_000);
    expect(stream.received.clears).toHaveLength(0);
    expect(h.stt.requests.length).toBe(transcriptionsBefore + 1);
    // the caller talks over the reply and its echo, speaking up (6 dB: the gate wants the caller
    // 6 dB above the echo, docs/telephony.md "Line noise and echo"): that interrupts
    h.stt.configure({ transcript: 'Where is my parcel?', delayMs: 50 });
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
    h.llm.script(undefined);
  }, 150_000);

  it('refuses a stream whose call token it does not know', async () => {
    const { port } = h.wss.address() as AddressInfo;
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

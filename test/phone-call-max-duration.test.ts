/**
 * @jest-environment ./test/support/native-arrays-environment.js
 */

import { decodeMulaw } from '../src/telephony/audio';
import { type CallsBench, startCallsBench } from './support/calls';
import { startLlmDouble } from './support/llm-double';
import { eventually } from './support/receiver';
import { startSttDouble } from './support/stt-double';
import { call } from './support/test-app';
import { startTwilioDouble, type TwilioDouble } from './support/twilio-double';

/**
 * A call that reaches its `maxDurationS` (issue 39 item 4): the agent says a closing line, the
 * carrier plays it whole (its mark comes back), and only then is the call hung up through the
 * carrier, ended `max_duration`.
 */
describe('a phone call at its maxDurationS', () => {
  let double: TwilioDouble;
  let bench: CallsBench;
  let llm: Awaited<ReturnType<typeof startLlmDouble>>;
  let stt: Awaited<ReturnType<typeof startSttDouble>>;
  const api = async (method: string, path: string, body?: unknown) =>
    call(bench.app.baseUrl, method, `/api/v2/developers${path}`, { token: bench.dev.testKey, body });

  beforeAll(async () => {
    double = await startTwilioDouble();
    llm = await startLlmDouble();
    stt = await startSttDouble({ transcript: 'Hello', delayMs: 50 });
    bench = await startCallsBench(double, { LLM_BASE_URL: llm.baseUrl, STT_BASE_URL: stt.baseUrl });
  }, 120_000);
  afterAll(async () => {
    await bench?.stop();
    await double?.close();
    await stt?.close();
    await llm?.close();
  });

  it('says the closing line, lets it play, then hangs up: ended max_duration', async () => {
    const to = '+14155550310';
    const placed = await api('POST', '/calls', { phoneNumberId: bench.number.id, to, maxDurationS: 10 });
    expect(placed.status).toBe(201);
    const carrierCall = await double.waitForCall((c) => c.setup.to === to);
    const stream = await carrierCall.waitForStream(15_000);
    // the greeting plays; then nothing is said until the time is up
    await eventually(async () => stream.received.marks.some((m) => m.name.startsWith('greeting:')), 30_000);
    await eventually(
      async () => stream.received.marks.some((m) => m.name.startsWith('closing:') && m.echoedAt),
      30_000,
    );
    // the closing line is speech, played whole (its marks echoed as played, not dropped by a clear)
    const closingMarks = stream.received.marks.filter((m) => m.name.startsWith('closing:'));
    const lineStart = stream.received.marks.filter((m) => m.name.startsWith('greeting:')).at(-1)!.receivedAt;
    const lineAudio = stream.received.media.filter((m) => m.at > lineStart);
    const pcm = decodeMulaw(Buffer.concat(lineAudio.map((m) => m.bytes)));
    expect(Math.sqrt(pcm.reduce((s, v) => s + v * v, 0) / pcm.length)).toBeGreaterThan(100);
    expect(stream.received.clears).toHaveLength(0);
    // then the carrier is told to hang up, and the call ends max_duration
    const ended = await eventually(async () => {
      const c = (await api('GET', `/calls/${placed.body.data.id}`)).body.data;
      return c.status === 'completed' ? c : undefined;
    }, 40_000);
    expect(ended.endedReason).toBe('max_duration');
    const hangUp = double.requests.find(
      (r) => r.method === 'POST' && r.path.endsWith(`/Calls/${carrierCall.sid}.json`),
    );
    expect(hangUp?.params.Status).toBe('completed');
    await eventually(async () => closingMarks.every((m) => m.echoedAt !== undefined), 10_000);
  }, 90_000);
});

/**
 * @jest-environment ./test/support/native-arrays-environment.js
 */
import { resamplePcm16 } from '../src/outbound/wav';
import { decodeMulaw } from '../src/telephony/audio';
import { speakWithEspeak } from './support/espeak-speech';
import type { LlmRequest } from './support/llm-double';
import { multimonDecodes } from './support/phone-audio-tools';
import { type PhoneMediaHarness, startPhoneMediaHarness, until } from './support/phone-media-harness';
import { call } from './support/test-app';
import type { TwilioMediaStream } from './support/twilio-double/media-stream';

type Transcript = { text: string; reply: { text: string }; actions: Record<string, unknown>[] }[];

/**
 * The built-in call tools on a phone line (issue 42 item 1): `end_call` hangs up once the goodbye
 * has played (the carrier's marks say so), `press_digits` plays DTMF tones a real decoder hears.
 */
describe('call tools on a phone call', () => {
  let h: PhoneMediaHarness;
  beforeAll(async () => {
    h = await startPhoneMediaHarness('call-tools');
  }, 120_000);
  afterAll(() => h?.close());
  afterEach(() => h.llm.script(undefined));

  const lastMessage = (req: LlmRequest) => req.messages.at(-1)!;

  /** The caller says `words` once the greeting has played; answers when the speech was sent. */
  async function callerSays(stream: TwilioMediaStream, words: string): Promise<number> {
    await until(() => stream.received.marks.length > 0 && stream.bufferedMs === 0, 'the greeting to play');
    h.stt.configure({ transcript: words, delayMs: 50 });
    const speech = await speakWithEspeak(words);
    const saidAt = performance.now();
    await stream.say(resamplePcm16(speech.pcm16, speech.sampleRate, 8000));
    return saidAt;
  }

  const transcriptOf = async (sessionId: string) =>
    (await h.sessionDetail(sessionId)).transcript as Transcript;

  it('end_call: the goodbye plays, then the call hangs up as agent_ended; the turn records the tool', async () => {
    h.llm.script((req) =>
      String(lastMessage(req).content).includes('bye')
        ? {
            content: 'Thank you, goodbye!',
            tool_calls: [{ id: 'call_end', name: 'end_call', arguments: {} }],
          }
        : { content: 'Okay.' },
    );
    const { sessionId, stream } = await h.phoneCall('end-call');
    await callerSays(stream, 'That is all, bye');
    await until(() => h.hungUp.some((u) => u.callId === 'call_end-call'), 'the hang-up', 30_000);
    const hangUp = h.hungUp.find((u) => u.callId === 'call_end-call')!;
    expect(hangUp.reason).toBe('agent_ended');
    // every segment of the goodbye was played (its mark echoed) before the hang-up was asked
    const replyMarks = stream.received.marks.filter((m) => !m.name.startsWith('greeting'));
    expect(replyMarks.length).toBeGreaterThan(0);
    for (const mark of replyMarks) expect(mark.echoedAt).toBeLessThanOrEqual(hangUp.at);
    await until(async () => (await transcriptOf(sessionId)).length === 1, 'the turn’s record');
    const [turn] = await transcriptOf(sessionId);
    expect(turn!.reply.text).toBe('Thank you, goodbye!');
    expect(turn!.actions).toEqual([
      expect.objectContaining({ type: 'tool', tool: 'end_call', toolId: 'call/end_call', success: true }),
    ]);
    // the model was offered the call tools; no transfer_call without destinations; asked once
    const offered = (h.llm.requests.at(-1) as LlmRequest).tools!.map((t) => t.function.name);
    expect(offered).toEqual(expect.arrayContaining(['end_call', 'press_digits']));
    expect(offered).not.toContain('transfer_call');
    expect(h.llm.requests.filter((r) => String(lastMessage(r).content).includes('bye'))).toHaveLength(1);
  }, 90_000);

  it('end_call with nothing said: the persona’s closing line plays before the hang-up', async () => {
    h.llm.script((req) =>
      String(lastMessage(req).content).includes('bye')
        ? { content: null, tool_calls: [{ id: 'call_end', name: 'end_call', arguments: {} }] }
        : { content: 'Okay.' },
    );
    const { stream } = await h.phoneCall('end-quiet', {}, { closingLine: 'Thanks for calling Homegoods.' });
    await callerSays(stream, 'Okay, bye now');
    await until(() => h.hungUp.some((u) => u.callId === 'call_end-quiet'), 'the hang-up', 30_000);
    const hangUp = h.hungUp.find((u) => u.callId === 'call_end-quiet')!;
    expect(hangUp.reason).toBe('agent_ended');
    const closing = stream.received.marks.filter((m) => m.name.startsWith('closing:'));
    expect(closing.length).toBeGreaterThan(0);
    for (const mark of closing) expect(mark.echoedAt).toBeLessThanOrEqual(hangUp.at);
  }, 90_000);

  it('press_digits: the tones go out after what was said, and multimon-ng hears the same keys', async () => {
    h.llm.script((req) => {
      const last = lastMessage(req);
      if (last.role === 'tool') return { content: 'Done.' };
      return String(last.content).includes('menu')
        ? {
            content: 'Pressing one, then pound.',
            tool_calls: [{ id: 'call_keys', name: 'press_digits', arguments: { digits: '1#' } }],
          }
        : { content: 'Okay.' };
    });
    const { sessionId, stream } = await h.phoneCall('press-keys');
    const saidAt = await callerSays(stream, 'Work the menu');
    await until(async () => (await transcriptOf(sessionId)).length === 1, 'the turn’s record', 30_000);
    const reply = stream.received.media.filter((m) => m.at >= saidAt);
    const heard = decodeMulaw(Buffer.concat(reply.map((m) => m.bytes)));
    expect(multimonDecodes(heard, 8000)).toBe('1#');
    const [turn] = await transcriptOf(sessionId);
    expect(turn!.reply.text).toBe('Pressing one, then pound. Done.');
    expect(turn!.actions).toEqual([
      expect.objectContaining({ tool: 'press_digits', toolId: 'call/press_digits', success: true }),
    ]);
  }, 90_000);

  it('press_digits with keys that are no keys: nothing is played, and the model is told why', async () => {
    h.llm.script((req) => {
      const last = lastMessage(req);
      if (last.role === 'tool') return { content: 'I could not press that.' };
      return String(last.content).includes('menu')
        ? { tool_calls: [{ id: 'call_bad', name: 'press_digits', arguments: { digits: 'one' } }] }
        : { content: 'Okay.' };
    });
    const { sessionId, stream } = await h.phoneCall('bad-keys');
    await callerSays(stream, 'Work the menu');
    await until(async () => (await transcriptOf(sessionId)).length === 1, 'the turn’s record', 30_000);
    const told = h.llm.requests.at(-1)!.messages.at(-1)!;
    expect(told.role).toBe('tool');
    expect(told.content).toContain('Invalid arguments: digits');
    const [turn] = await transcriptOf(sessionId);
    expect(turn!.actions).toEqual([expect.objectContaining({ tool: 'press_digits', success: false })]);
  }, 90_000);

  it('a keypad entry runs a voice command whose condition reads trigger.digits', async () => {
    const graph = (id: string, text: string) => ({ id, type: 'speak', config: { text } });
    const res = await call(h.app.baseUrl, 'POST', '/api/v2/developers/workflows', {
      token: h.dev.testKey,
      body: {
        name: 'Phone menu',
        trigger: { type: 'voice_command', config: { command: 'keypad' } },
        nodes: [
          { id: 'start', type: 'start' },
          { id: 'choice', type: 'condition', config: { expression: 'trigger.digits == "2"' } },
          graph('billing', 'Billing, {{trigger.digits}}.'),
          graph('other', 'Support.'),
          { id: 'end', type: 'end' },
        ],
        edges: [
          { sourceId: 'start', targetId: 'choice' },
          { sourceId: 'choice', targetId: 'billing', condition: 'true' },
          { sourceId: 'choice', targetId: 'other', condition: 'false' },
          { sourceId: 'billing', targetId: 'end' },
          { sourceId: 'other', targetId: 'end' },
        ],
      },
    });
    expect(res.status).toBe(201);
    const { sessionId, stream } = await h.phoneCall('menu-keys');
    await until(() => stream.received.marks.length > 0 && stream.bufferedMs === 0, 'the greeting to play');
    for (const key of '2#') stream.pressKey(key);
    await until(async () => (await transcriptOf(sessionId)).length === 1, 'the entry’s turn', 30_000);
    stream.pressKey('5');
    stream.pressKey('#');
    await until(async () => (await transcriptOf(sessionId)).length === 2, 'the second entry’s turn', 30_000);
    const transcript = await transcriptOf(sessionId);
    expect(transcript.map((t) => [t.text, t.reply.text])).toEqual([
      ['keypad: 2', 'Billing, 2.'],
      ['keypad: 5', 'Support.'],
    ]);
  }, 90_000);

  it('transfer_call: put through to a listed number once the words have played; an unlisted one refused', async () => {
    const desk = { destination: '+14155550188', name: 'Billing desk', description: 'Invoices and refunds' };
    h.llm.script((req) => {
      const last = lastMessage(req);
      if (last.role === 'tool') return { content: 'Sorry, I cannot transfer you there.' };
      if (String(last.content).includes('manager'))
        return {
          tool_calls: [{ id: 'call_x', name: 'transfer_call', arguments: { destination: '+19005550100' } }],
        };
      return String(last.content).includes('invoice')
        ? {
            content: 'Let me put you through to billing.',
            tool_calls: [
              { id: 'call_t', name: 'transfer_call', arguments: { destination: desk.destination } },
            ],
          }
        : { content: 'Okay.' };
    });
    const { sessionId, stream } = await h.phoneCall('transfer', {}, { transferDestinations: [desk] });
    await callerSays(stream, 'Get me the manager');
    await until(async () => (await transcriptOf(sessionId)).length === 1, 'the refused turn', 30_000);
    // the model saw only the listed destination, and heard why the other was refused
    const offered = (h.llm.requests[0] as LlmRequest).tools!.find(
      (t) => t.function.name === 'transfer_call',
    )!;
    expect(JSON.stringify(offered.function.parameters)).toContain('+14155550188');
    expect(String(lastMessage(h.llm.requests.at(-1) as LlmRequest).content)).toContain(
      'is not a destination',
    );
    expect(h.transfers.filter((t) => t.callId === 'call_transfer')).toEqual([]);
    await callerSays(stream, 'About my invoice');
    await until(() => h.transfers.some((t) => t.callId === 'call_transfer'), 'the transfer', 30_000);
    const transfer = h.transfers.find((t) => t.callId === 'call_transfer')!;
    expect(transfer.destination).toBe(desk.destination);
    // the caller heard "let me put you through" before: its marks came back before the transfer
    const said = stream.received.marks.filter((m) => !m.name.startsWith('greeting'));
    expect(said.length).toBeGreaterThan(0);
    for (const mark of said) expect(mark.echoedAt).toBeLessThanOrEqual(transfer.at);
    await until(async () => (await transcriptOf(sessionId)).length === 2, 'the transfer turn', 30_000);
    const [refused, moved] = await transcriptOf(sessionId);
    expect(refused!.actions).toEqual([expect.objectContaining({ tool: 'transfer_call', success: false })]);
    expect(moved!.actions).toEqual([
      expect.objectContaining({ tool: 'transfer_call', toolId: 'call/transfer_call', success: true }),
    ]);
    expect(moved!.reply.text).toBe('Let me put you through to billing.');
  }, 120_000);
});

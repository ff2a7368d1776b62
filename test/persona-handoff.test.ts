/**
 * @jest-environment ./test/support/native-arrays-environment.js
 */
import { resamplePcm16 } from '../src/outbound/wav';
import { speakWithEspeak } from './support/espeak-speech';
import type { LlmReply, LlmRequest } from './support/llm-double';
import { completeManifest } from './support/personas';
import { type PhoneMediaHarness, startPhoneMediaHarness, until } from './support/phone-media-harness';
import { call } from './support/test-app';
import { openStream } from './support/voice-stream';

type Transcript = { text: string; reply: { text: string }; actions: Record<string, unknown>[] }[];

/**
 * A transfer to another persona of the account (issue 42 item 1, Vapi's squads): the conversation
 * goes on in the same session and call with that agent: its greeting in its voice, its
 * instructions, the history so far; the turn records the handoff. On a phone line and on the live
 * stream.
 */
describe('handing a call to another persona', () => {
  let h: PhoneMediaHarness;
  let billing: string;
  let frontDesk: string;
  beforeAll(async () => {
    h = await startPhoneMediaHarness('handoff');
    const persona = async (manifest: object) => {
      const res = await call(h.app.baseUrl, 'POST', '/api/v1/developers/personas', {
        token: h.dev.token,
        body: { manifest },
      });
      expect([res.status, res.body.validationErrors]).toEqual([201, undefined]);
      return res.body.persona.id as string;
    };
    const bill = completeManifest('billing-bill');
    billing = await persona({
      ...bill,
      identity: { ...bill.identity, name: 'Bill' },
      voice: { provider: 'espeak-ng', voice_id: 'espeak-en-us-grace' },
      behaviors: { greetings: ['Billing here, this is Bill.'], backchannels: ['right'] },
    });
    frontDesk = await persona({
      ...completeManifest('front-desk'),
      telephony: {
        transferDestinations: [
          { destination: billing, name: 'Billing', description: 'Invoices, refunds and payments' },
        ],
      },
    });
    // the front desk hands billing questions over; whoever answers says who they are
    h.llm.script((req: LlmRequest): LlmReply => {
      const system = String(req.messages[0]!.content);
      const last = req.messages.at(-1)!;
      if (last.role === 'user' && String(last.content).includes('invoice') && system.includes('Ava'))
        return {
          content: 'Let me put you through to billing.',
          tool_calls: [{ id: 'call_t', name: 'transfer_call', arguments: { destination: billing } }],
        };
      return { content: `This is ${system.includes('Bill') ? 'Bill' : 'Ava'}.` };
    });
  }, 120_000);
  afterAll(() => h?.close());

  const transcriptOf = async (sessionId: string) =>
    (await h.sessionDetail(sessionId)).transcript as Transcript;

  it('on a phone line: the new agent greets in its voice and takes the next turn, with the history', async () => {
    const { sessionId, stream } = await h.phoneCall(
      'to-billing',
      {},
      {
        personaId: frontDesk,
        transferDestinations: [{ destination: billing, name: 'Billing', description: 'Invoices' }],
      },
    );
    await until(() => stream.received.marks.length > 0 && stream.bufferedMs === 0, 'the greeting to play');
    const say = async (words: string) => {
      h.stt.configure({ transcript: words, delayMs: 50 });
      const speech = await speakWithEspeak(words);
      await stream.say(resamplePcm16(speech.pcm16, speech.sampleRate, 8000));
    };
    await say('A question about my invoice');
    await until(async () => (await transcriptOf(sessionId)).length === 1, 'the first turn', 30_000);
    await until(
      () => stream.received.marks.some((m) => m.name.startsWith('handoff-1:') && m.echoedAt !== undefined),
      'the new agent’s greeting to play',
      30_000,
    );
    const detail = await h.sessionDetail(sessionId);
    expect(detail.personaId).toBe(billing);
    await say('Who am I talking to');
    await until(async () => (await transcriptOf(sessionId)).length === 2, 'the second turn', 30_000);
    const transcript = await transcriptOf(sessionId);
    expect(transcript.map((t) => t.reply.text)).toEqual([
      'Let me put you through to billing.',
      'This is Bill.',
    ]);
    expect(transcript[0]!.actions).toEqual([
      expect.objectContaining({ tool: 'transfer_call', toolId: 'call/transfer_call', success: true }),
    ]);
    // Bill's model call carries the history so far
    const billsTurn = h.llm.requests.at(-1) as LlmRequest;
    expect(JSON.stringify(billsTurn.messages)).toContain('A question about my invoice');
    // transfer_call, not end_call or press_digits, was what the front desk could use besides
    expect(h.hungUp.filter((u) => u.callId === 'call_to-billing')).toEqual([]);
  }, 120_000);

  it('on the live stream: the handoff greeting plays in the new voice and the session runs the new persona', async () => {
    const res = await call(h.app.baseUrl, 'POST', '/api/v2/developers/sessions', {
      token: h.dev.testKey,
      body: { personaId: frontDesk, userId: 'web-caller' },
    });
    const sessionId = res.body.data.id as string;
    const client = await openStream(h.app.baseUrl, sessionId, { key: h.dev.testKey });
    await client.next('reply.done', (m) => m.turnId === 'greeting');
    client.sendText('I need a copy of my invoice');
    await client.next('turn.recorded');
    const greeting = await client.next('reply.audio', (m) => m.turnId === 'handoff-1');
    expect(greeting.text).toBe('Billing here, this is Bill.');
    await client.next('reply.done', (m) => m.turnId === 'handoff-1');
    client.sendText('Who is this?');
    const second = await client.next('turn.recorded', (m) => m.turn.index === 2);
    expect(second.turn.reply.text).toBe('This is Bill.');
    expect((await h.sessionDetail(sessionId)).personaId).toBe(billing);
    client.close();
  }, 60_000);
});

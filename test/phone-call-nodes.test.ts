/**
 * @jest-environment ./test/support/native-arrays-environment.js
 */
import { resamplePcm16 } from '../src/outbound/wav';
import { decodeMulaw } from '../src/telephony/audio';
import { speakWithEspeak } from './support/espeak-speech';
import { multimonDecodes } from './support/phone-audio-tools';
import { type PhoneMediaHarness, startPhoneMediaHarness, until } from './support/phone-media-harness';
import { call } from './support/test-app';
import type { TwilioMediaStream } from './support/twilio-double/media-stream';

type Turn = {
  text: string;
  reply: { text: string };
  actions: Record<string, unknown>[];
  error: string | null;
};

/** start → each of `nodes` in turn → end. */
function linear(nodes: { id: string; type: string; config?: Record<string, unknown> }[]) {
  const all = [{ id: 'start', type: 'start' }, ...nodes, { id: 'end', type: 'end' }];
  return { nodes: all, edges: all.slice(1).map((n, i) => ({ sourceId: all[i]!.id, targetId: n.id })) };
}

/**
 * The call tools as voice-workflow nodes (issue 42 item 1): a voice command's `press_digits`,
 * `end_call` and `transfer_call` nodes act on the phone call once the graph has run and its speech
 * was said, through the call tools' own code; off a phone line (a REST turn, a triggered run) the
 * node's step fails and says why.
 */
describe('call nodes of voice commands on a phone call', () => {
  let h: PhoneMediaHarness;
  const workflowIds: Record<string, string> = {};
  const api = (method: string, path: string, body?: unknown) =>
    call(h.app.baseUrl, method, `/api/v2/developers${path}`, { token: h.dev.testKey, body });

  async function workflow(name: string, command: string, graph: ReturnType<typeof linear>) {
    const res = await api('POST', '/workflows', {
      name,
      trigger: { type: 'voice_command', config: { command } },
      ...graph,
    });
    expect([name, res.status]).toEqual([name, 201]);
    workflowIds[name] = res.body.data.id;
  }

  beforeAll(async () => {
    h = await startPhoneMediaHarness('call-nodes');
    await workflow(
      'Menu keys',
      'work the phone menu',
      linear([
        { id: 'say', type: 'speak', config: { text: 'Pressing one, then pound.' } },
        { id: 'keys', type: 'press_digits', config: { digits: '1#' } },
      ]),
    );
    // an llm_prompt: the graph runs in the session's workflow, step by step
    await workflow(
      'Goodbye',
      'that is all goodbye',
      linear([
        { id: 'ask', type: 'llm_prompt', config: { prompt: 'Say a short goodbye' } },
        { id: 'say', type: 'speak', config: { text: '{{ask.result}}' } },
        { id: 'bye', type: 'end_call', config: { closingLine: 'Have a good day.' } },
      ]),
    );
    await workflow(
      'Manager line',
      'get me the manager',
      linear([
        { id: 'say', type: 'speak', config: { text: 'Connecting you to the manager.' } },
        { id: 't', type: 'transfer_call', config: { destination: '+19005550100' } },
      ]),
    );
  }, 120_000);
  afterAll(() => h?.close());
  afterEach(() => h.llm.script(undefined));

  /** The caller says `words` once the greeting has played; answers when the speech was sent. */
  async function callerSays(stream: TwilioMediaStream, words: string): Promise<number> {
    await until(() => stream.received.marks.length > 0 && stream.bufferedMs === 0, 'the greeting to play');
    h.stt.configure({ transcript: words, delayMs: 50 });
    const speech = await speakWithEspeak(words);
    const saidAt = performance.now();
    await stream.say(resamplePcm16(speech.pcm16, speech.sampleRate, 8000));
    return saidAt;
  }

  const transcriptOf = async (sessionId: string) => (await h.sessionDetail(sessionId)).transcript as Turn[];

  it('press_digits: the speech, then tones that multimon-ng decodes to the node’s keys', async () => {
    const { sessionId, stream } = await h.phoneCall('node-keys');
    const saidAt = await callerSays(stream, 'Work the phone menu');
    await until(async () => (await transcriptOf(sessionId)).length === 1, 'the turn’s record', 30_000);
    const reply = stream.received.media.filter((m) => m.at >= saidAt);
    const heard = decodeMulaw(Buffer.concat(reply.map((m) => m.bytes)));
    expect(multimonDecodes(heard, 8000)).toBe('1#');
    const [turn] = await transcriptOf(sessionId);
    expect(turn!.reply.text).toBe('Pressing one, then pound.');
    expect(turn!.error).toBeNull();
    expect(turn!.actions).toEqual([
      expect.objectContaining({ type: 'workflow', workflowName: 'Menu keys', status: 'completed' }),
      expect.objectContaining({
        type: 'tool',
        tool: 'press_digits',
        toolId: 'call/press_digits',
        arguments: { digits: '1#' },
        success: true,
      }),
    ]);
  }, 90_000);

  it('end_call (run in the session’s workflow): what it said and its closing line play, then the call hangs up as agent_ended', async () => {
    h.llm.script(() => ({ content: 'Goodbye from Homegoods.' }));
    const { sessionId, stream } = await h.phoneCall('node-end');
    await callerSays(stream, 'That is all, goodbye');
    await until(() => h.hungUp.some((u) => u.callId === 'call_node-end'), 'the hang-up', 30_000);
    const hangUp = h.hungUp.find((u) => u.callId === 'call_node-end')!;
    expect(hangUp.reason).toBe('agent_ended');
    const replyMarks = stream.received.marks.filter((m) => !m.name.startsWith('greeting'));
    expect(replyMarks.length).toBeGreaterThan(0);
    for (const mark of replyMarks) expect(mark.echoedAt).toBeLessThanOrEqual(hangUp.at);
    // the node's closing line was said: the persona's is not added
    expect(replyMarks.filter((m) => m.name.startsWith('closing:'))).toEqual([]);
    await until(async () => (await transcriptOf(sessionId)).length === 1, 'the turn’s record');
    const [turn] = await transcriptOf(sessionId);
    expect(turn!.reply.text).toBe('Goodbye from Homegoods. Have a good day.');
    expect(turn!.actions).toEqual([
      expect.objectContaining({ type: 'workflow', workflowName: 'Goodbye', status: 'completed' }),
      expect.objectContaining({ tool: 'end_call', toolId: 'call/end_call', success: true }),
    ]);
    const { executionId } = turn!.actions[0] as { executionId: string };
    const execution = (await api('GET', `/workflows/${workflowIds.Goodbye}/executions/${executionId}`)).body
      .data;
    expect(execution.steps.find((s: { nodeId: string }) => s.nodeId === 'bye')).toMatchObject({
      status: 'completed',
      result: { call: 'end_call', closingLine: 'Have a good day.' },
    });
  }, 90_000);

  it('transfer_call to a destination the persona does not list: refused, the model told, the turn’s error says so', async () => {
    h.llm.script(() => ({ content: 'I cannot put you through to the manager.' }));
    const desk = { destination: '+14155550188', name: 'Billing desk', description: 'Invoices' };
    const { sessionId, stream } = await h.phoneCall('node-unlisted', {}, { transferDestinations: [desk] });
    await callerSays(stream, 'Get me the manager');
    await until(async () => (await transcriptOf(sessionId)).length === 1, 'the turn’s record', 30_000);
    expect(h.transfers.filter((t) => t.callId === 'call_node-unlisted')).toEqual([]);
    const refusal =
      'transfer_call node "t" was refused: +19005550100 is not a destination this call may be transferred to';
    const [turn] = await transcriptOf(sessionId);
    expect(turn!.error).toBe(`Workflow Manager line failed: ${refusal}`);
    expect(turn!.reply.text).toBe('Connecting you to the manager. I cannot put you through to the manager.');
    expect(turn!.actions).toEqual([
      expect.objectContaining({ type: 'workflow', status: 'completed' }),
      expect.objectContaining({
        tool: 'transfer_call',
        success: false,
        error: expect.stringContaining('+19005550100'),
      }),
    ]);
    const told = h.llm.requests.at(-1)!.messages.map((m: { content: string | null }) => m.content);
    expect(told).toContainEqual(expect.stringContaining(refusal));
    expect(h.hungUp.some((u) => u.callId === 'call_node-unlisted')).toBe(false);
  }, 90_000);

  it('off a phone line the call node’s step fails, and says why: a REST turn, a triggered run', async () => {
    h.llm.script(() => ({ content: 'I cannot do that here.' }));
    const session = await api('POST', '/sessions', { personaId: h.personaId, userId: 'rest-caller' });
    const sessionId = session.body.data.id as string;
    const rest = await api('POST', `/sessions/${sessionId}/turns`, { text: 'work the phone menu' });
    expect(rest.status).toBe(200);
    expect(rest.body.data).toMatchObject({
      reply: { text: 'Pressing one, then pound. I cannot do that here.' },
      error: 'Workflow Menu keys failed: Node keys failed: press_digits runs only on a phone call',
      actions: [{ type: 'workflow', status: 'failed' }],
    });
    const { executionId } = rest.body.data.actions[0];
    const execution = (await api('GET', `/workflows/${workflowIds['Menu keys']}/executions/${executionId}`))
      .body.data;
    expect(execution.steps.find((s: { nodeId: string }) => s.nodeId === 'keys')).toMatchObject({
      status: 'failed',
      error: 'press_digits runs only on a phone call',
    });
    // a graph the session's workflow runs: the same
    const goodbye = await api('POST', `/sessions/${sessionId}/turns`, { text: 'that is all goodbye' });
    expect(goodbye.body.data.error).toBe(
      'Workflow Goodbye failed: Node bye failed: end_call runs only on a phone call',
    );
    // a triggered run is on no call
    const run = await api('POST', `/workflows/${workflowIds['Manager line']}/execute`, { input: {} });
    expect(run.body.data).toMatchObject({
      status: 'failed',
      error: {
        nodeId: 't',
        message: expect.stringMatching(/^transfer_call runs only on a call that can be transferred/),
      },
    });
  }, 90_000);
});

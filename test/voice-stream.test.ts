/**
 * @jest-environment ./test/support/native-arrays-environment.js
 */
import { startWorker } from '../src/app/runtime';
import { issueClientToken } from '../src/sessions/stream/client-token';
import { TEST_ENV } from './support/env';
import { startLlmDouble } from './support/llm-double';
import { type McpTestServer, startMcpTestServer } from './support/mcp-test-server';
import { completeManifest } from './support/personas';
import { eventually } from './support/receiver';
import { call, type Developer, newDeveloper, startTestApp, type TestApp } from './support/test-app';
import { audioOf, openStream, refusedUpgrade, rms, streamUrl, typesOf } from './support/voice-stream';

type LlmDouble = Awaited<ReturnType<typeof startLlmDouble>>;

const PLANNED =
  'Sure, I can help with that. Your parcel left our warehouse this morning and is on its way. It should reach you on Thursday before noon.';

/**
 * The live voice stream (docs/voice-stream.md) with text input: a real WebSocket client (the
 * project's own, on the `ws` package), the app and a worker in this process, an LLM double that
 * streams like a hosted model and a real MCP server.
 */
describe('the live voice stream: text in, streamed speech out', () => {
  let app: TestApp;
  let worker: Awaited<ReturnType<typeof startWorker>>;
  let llm: LlmDouble;
  let mcp: McpTestServer;
  let dev: Developer;
  let personaId: string;
  const api = (method: string, path: string, body?: unknown) =>
    call(app.baseUrl, method, `/api/v2/developers${path}`, { token: dev.testKey, body });
  const start = async (extra: Record<string, unknown> = {}) => {
    const res = await api('POST', '/sessions', { personaId, userId: 'streamer', ...extra });
    expect(res.status).toBe(201);
    return res.body.data.id as string;
  };
  const open = async (id: string) => {
    const client = await openStream(app.baseUrl, id, { key: dev.testKey });
    await client.next('session.ready');
    return client;
  };

  beforeAll(async () => {
    llm = await startLlmDouble();
    mcp = await startMcpTestServer();
    app = await startTestApp({
      LLM_BASE_URL: llm.baseUrl,
      TEMPORAL_TASK_QUEUE: `vp-stream-${process.pid}`,
      RATE_LIMITS: 'off',
    });
    worker = await startWorker(app.ctx, TEST_ENV.temporalAddress(), { dispatch: false });
    dev = await newDeveloper(app, 'stream');
    const server = await api('POST', '/mcp-servers', { name: 'orders', endpoint: mcp.url });
    expect(server.status).toBe(201);
    const manifest = {
      ...completeManifest('stream-agent'),
      tools: [{ type: 'mcp_server', id: server.body.data.id }],
    };
    manifest.behaviors = { ...manifest.behaviors, thinking_sounds: ['One moment while I check.'] } as never;
    const created = await call(app.baseUrl, 'POST', '/api/v1/developers/personas', {
      token: dev.token,
      body: { manifest },
    });
    personaId = created.body.persona.id;
  });
  afterAll(async () => {
    await worker?.stop();
    await app?.close();
    await mcp?.close();
    await llm?.close();
  });
  beforeEach(() => llm.script(undefined));

  it('greets, then answers text with deltas, then audio that is speech, then the recorded turn', async () => {
    const id = await start();
    const client = await openStream(app.baseUrl, id, { key: dev.testKey });
    const audio = audioOf(client);
    const ready = await client.next('session.ready');
    expect(ready).toMatchObject({
      sessionId: id,
      greeting: 'Hi, this is Ava from Homegoods. How can I help?',
    });
    await client.next('reply.done', (m) => m.turnId === 'greeting');
    expect(rms(audio('greeting'))).toBeGreaterThan(300);

    llm.script(() => ({ content: PLANNED, delayMs: 50, tokenDelayMs: 40 }));
    client.sendText('Where is my parcel?');
    const recorded = await client.next('turn.recorded');
    const { turnId } = recorded;
    const types = typesOf(client.received, turnId);
    expect(types[0]).toBe('reply.delta');
    expect(types).toContain('reply.audio');
    expect(types.slice(-2)).toEqual(['reply.done', 'turn.recorded']);
    const deltas = client.received.filter((m) => m.type === 'reply.delta' && m.turnId === turnId);
    expect(deltas.length).toBeGreaterThan(10);
    // the first audio went out before the model had finished (the first segment is a clause)
    const firstAudio = client.received.findIndex((m) => m.type === 'reply.audio' && m.turnId === turnId);
    const lastDelta = client.received.findLastIndex((m) => m.type === 'reply.delta' && m.turnId === turnId);
    expect(firstAudio).toBeLessThan(lastDelta);
    expect(client.received[firstAudio]).toMatchObject({ segment: 0, text: 'Sure, I can help with that.' });
    expect(rms(audio(turnId))).toBeGreaterThan(300);
    // the record is the REST turn's shape, with what was spoken
    expect(recorded.turn).toMatchObject({
      index: 1,
      route: 'llm',
      reply: { text: PLANNED },
      interrupted: false,
      spokenText: PLANNED,
    });
    const detail = await api('GET', `/sessions/${id}`);
    expect(detail.body.data.transcript).toEqual([recorded.turn]);
    client.close();
  });

  it('a tool call mid-reply: its events in order, run once in the workflow, recorded with the turn', async () => {
    const id = await start();
    const client = await open(id);
    llm.script((req, i) => {
      if (i === 0)
        return {
          content: 'Let me look that up.',
          tool_calls: [{ id: 'call_1', name: 'orders__lookup_order', arguments: { orderId: 'S-1' } }],
          tokenDelayMs: 5,
        };
      const tool = req.messages.find((m) => m.role === 'tool');
      return { content: `Order S-1 is ${JSON.parse(tool!.content!).result.status}.`, tokenDelayMs: 5 };
    });
    const lookups = mcp.calls.filter((c) => c.name === 'lookup_order').length;
    client.sendText('Where is order S-1?');
    const recorded = await client.next('turn.recorded');
    const types = typesOf(client.received, recorded.turnId).filter((t) => !t.startsWith('reply.audio'));
    expect(types).toEqual([
      'reply.delta',
      'tool.started',
      'tool.finished',
      'reply.delta',
      'reply.done',
      'turn.recorded',
    ]);
    expect(client.received.find((m) => m.type === 'tool.finished')).toMatchObject({
      callId: 'call_1',
      name: 'orders__lookup_order',
      success: true,
    });
    expect(mcp.calls.filter((c) => c.name === 'lookup_order').length).toBe(lookups + 1);
    expect(recorded.turn).toMatchObject({
      reply: { text: 'Let me look that up. Order S-1 is shipped.' },
      actions: [{ type: 'tool', tool: 'orders__lookup_order', success: true }],
    });
    client.close();
  });

  it('a voice command run in the workflow: each node as it settles, its speak steps heard as they complete', async () => {
    const server = (await api('GET', '/mcp-servers')).body.data[0].id;
    const created = await api('POST', '/workflows', {
      name: 'Slow status',
      trigger: { type: 'voice_command', config: { command: 'check my delivery status' } },
      nodes: [
        { id: 'start', type: 'start' },
        { id: 'hello', type: 'speak', config: { text: 'Let me check your delivery.' } },
        {
          id: 'wait',
          type: 'mcp_call',
          config: { serverId: server, toolName: 'sleep_ms', arguments: { ms: 1500 } },
        },
        { id: 'done', type: 'speak', config: { text: 'It arrives tomorrow.' } },
        { id: 'end', type: 'end' },
      ],
      edges: [
        { sourceId: 'start', targetId: 'hello' },
        { sourceId: 'hello', targetId: 'wait' },
        { sourceId: 'wait', targetId: 'done' },
        { sourceId: 'done', targetId: 'end' },
      ],
    });
    expect(created.status).toBe(201);
    try {
      const id = await start();
      const client = await open(id);
      client.sendText('Check my delivery status');
      const recorded = await client.next('turn.recorded');
      // the first speak step was heard while the tool still ran
      const at = (found: (m: (typeof client.received)[number]) => boolean) =>
        client.received.findIndex(found);
      const firstAudio = at((m) => m.type === 'reply.audio' && m.turnId === recorded.turnId);
      expect(client.received[firstAudio]).toMatchObject({ text: 'Let me check your delivery.' });
      expect(firstAudio).toBeLessThan(at((m) => m.type === 'workflow.step' && m.nodeId === 'wait'));
      const steps = client.received.flatMap((m) =>
        m.type === 'workflow.step' && m.turnId === recorded.turnId ? [[m.nodeId, m.status]] : [],
      );
      expect(steps).toEqual([
        ['start', 'completed'],
        ['hello', 'completed'],
        ['wait', 'completed'],
        ['done', 'completed'],
        ['end', 'completed'],
        [null, 'completed'],
      ]);
      expect(recorded.turn).toMatchObject({
        route: 'workflow',
        reply: { text: 'Let me check your delivery. It arrives tomorrow.' },
      });
      client.close();
    } finally {
      await api('DELETE', `/workflows/${created.body.data.id}`);
    }
  });

  it('a tool slower than 300 ms: the persona says a hold phrase meanwhile', async () => {
    const id = await start();
    const client = await open(id);
    llm.script((_req, i) =>
      i === 0
        ? { tool_calls: [{ id: 'slow_1', name: 'orders__sleep_ms', arguments: { ms: 1200 } }] }
        : { content: 'All done.' },
    );
    client.sendText('Please wait for it');
    const recorded = await client.next('turn.recorded');
    const audio = client.received.filter((m) => m.type === 'reply.audio' && m.turnId === recorded.turnId);
    expect(audio.map((m) => m.type === 'reply.audio' && [m.text, m.hold])).toEqual([
      ['One moment while I check.', true],
      ['All done.', false],
    ]);
    // the hold phrase is not part of what the agent answered
    expect(recorded.turn).toMatchObject({ reply: { text: 'All done.' }, spokenText: 'All done.' });
    client.close();
  });

  it('interrupt: audio stops, the model stream is closed, the turn keeps what was heard, the next turn’s history only that', async () => {
    const id = await start();
    const client = await open(id);
    const long = Array.from(
      { length: 12 },
      (_, i) => `This is sentence number ${i + 1} of a long answer.`,
    ).join(' ');
    llm.script(() => ({ content: long, tokenDelayMs: 40 }));
    const closedBefore = llm.closedStreams.length;
    client.sendText('Tell me everything');
    const firstAudio = await client.next('reply.audio', (m) => m.turnId !== 'greeting');
    client.interrupt();
    const interrupted = await client.next('interrupted');
    const recorded = await client.next('turn.recorded');
    expect(interrupted.turnId).toBe(firstAudio.turnId);
    // nothing more was said after the interruption
    const at = client.received.indexOf(interrupted);
    expect(
      client.received.slice(at).filter((m) => m.type === 'reply.audio' || m.type === 'reply.delta'),
    ).toEqual([]);
    await eventually(async () => llm.closedStreams.length > closedBefore);
    const closed = llm.closedStreams.at(-1)!;
    expect(closed.tokensSent).toBeLessThan(closed.tokensPlanned);
    expect(recorded.turn.interrupted).toBe(true);
    expect(recorded.turn.spokenText.length).toBeGreaterThan(0);
    expect(long.startsWith(recorded.turn.spokenText)).toBe(true);
    expect(recorded.turn.spokenText).toBe(interrupted.spokenText);
    // the next turn's model history carries only what was spoken
    llm.script(undefined);
    const asked = llm.requests.length;
    client.sendText('Sorry, go on');
    await client.next('turn.recorded', (m) => m.turnId !== recorded.turnId);
    const history = llm.requests[asked].messages.filter((m: { role: string }) => m.role === 'assistant');
    expect(history.at(-1).content).toBe(recorded.turn.spokenText);
    client.close();
  });

  it('the reply is sent ahead of playback: an interruption while it still plays counts, and the turn waits for it', async () => {
    const id = await start();
    const client = await open(id);
    llm.script(() => ({ content: 'Your parcel is on its way. It should arrive on Thursday before noon.' }));
    client.sendText('Where is my parcel?');
    const done = await client.next('reply.done', (m) => m.turnId !== 'greeting');
    expect(done.interrupted).toBe(false);
    // everything was sent, but the caller's player is still on it: no record yet, and a stop counts
    expect(client.received.some((m) => m.type === 'turn.recorded')).toBe(false);
    client.interrupt();
    const interrupted = await client.next('interrupted');
    const recorded = await client.next('turn.recorded');
    expect(recorded.turn).toMatchObject({ interrupted: true, spokenText: interrupted.spokenText });
    expect(recorded.turn.spokenText).toBe('Your parcel is on its way.');
    client.close();
  });

  it('a backchannel while the agent speaks does not interrupt it', async () => {
    const id = await start();
    const client = await open(id);
    llm.script(() => ({ content: PLANNED, tokenDelayMs: 30 }));
    client.sendText('Where is my parcel?');
    await client.next('reply.audio', (m) => m.turnId !== 'greeting');
    client.sendText('uh-huh');
    client.sendText('Mm-hm.');
    const recorded = await client.next('turn.recorded');
    expect(recorded.turn).toMatchObject({ interrupted: false, spokenText: PLANNED });
    await new Promise((r) => setTimeout(r, 300));
    expect(client.received.filter((m) => m.type === 'turn.recorded')).toHaveLength(1);
    expect((await api('GET', `/sessions/${id}`)).body.data.turnCount).toBe(1);
    client.close();
  });

  it('the client vanishing mid-reply: the turn is recorded as interrupted', async () => {
    const id = await start();
    const client = await open(id);
    llm.script(() => ({ content: PLANNED, tokenDelayMs: 60 }));
    client.sendText('Where is my parcel?');
    await client.next('reply.audio', (m) => m.turnId !== 'greeting');
    client.close();
    const transcript = await eventually(async () => {
      const t = (await api('GET', `/sessions/${id}`)).body.data.transcript;
      return t.length === 1 && t;
    });
    expect(transcript[0]).toMatchObject({ interrupted: true });
    expect(PLANNED.startsWith(transcript[0].spokenText)).toBe(true);
    // the stream let go of the session: a REST turn is taken again
    await eventually(
      async () => (await api('POST', `/sessions/${id}/turns`, { text: 'hello again' })).status === 200,
    );
  });

  it('refuses before any data: no credential, another session’s token, an expired token, another account’s key', async () => {
    const id = await start();
    const other = await start();
    const url = streamUrl(app.baseUrl, id);
    expect(await refusedUpgrade(url)).toMatchObject({ status: 401, body: { code: 'UNAUTHORIZED' } });
    const token = (await api('POST', `/sessions/${other}/client-token`)).body.data.token;
    expect(await refusedUpgrade(streamUrl(app.baseUrl, id, token))).toMatchObject({
      status: 401,
      body: { error: expect.stringContaining('another session') },
    });
    const expired = issueClientToken(
      app.ctx.encryptor,
      { accountId: dev.publisherId, environment: 'test' },
      id,
      Date.now() - 600_000,
    );
    expect(await refusedUpgrade(streamUrl(app.baseUrl, id, expired.token))).toMatchObject({
      status: 401,
      body: { error: expect.stringContaining('expired') },
    });
    expect(await refusedUpgrade(streamUrl(app.baseUrl, id, 'v1.forged.token.x'))).toMatchObject({
      status: 401,
    });
    const stranger = await newDeveloper(app, 'stranger');
    expect(await refusedUpgrade(url, { authorization: `Bearer ${stranger.testKey}` })).toMatchObject({
      status: 404,
      body: { code: 'NOT_FOUND' },
    });
    // the live key of the same account sees another environment: not found either
    expect(await refusedUpgrade(url, { authorization: `Bearer ${dev.liveKey}` })).toMatchObject({
      status: 404,
    });
    // a valid client token opens it
    const mine = (await api('POST', `/sessions/${id}/client-token`)).body.data;
    expect(Date.parse(mine.expiresAt) - Date.now()).toBeGreaterThan(4 * 60_000);
    const client = await openStream(app.baseUrl, id, { token: mine.token });
    await client.next('session.ready');
    client.close();
  });

  it('text sent the moment the stream opens (before session.ready) is taken, after the greeting starts', async () => {
    const id = await start();
    const client = await openStream(app.baseUrl, id, { key: dev.testKey });
    client.sendText('hello right away');
    const recorded = await client.next('turn.recorded');
    expect(recorded.turn).toMatchObject({ index: 1, text: 'hello right away' });
    const types = client.received.map((m) => m.type);
    expect(types.indexOf('session.ready')).toBeLessThan(types.indexOf('turn.recorded'));
    client.close();
  });

  it('a client gone before its stream could hold the session lets it go: the next stream opens', async () => {
    const id = await start();
    const first = await openStream(app.baseUrl, id, { key: dev.testKey });
    first.close();
    await eventually(async () => {
      const next = await openStream(app.baseUrl, id, { key: dev.testKey });
      const answer = await Promise.race([
        next.next('session.ready').then(() => 'ready'),
        next.next('error').then((e) => e.code),
      ]);
      next.close();
      return answer === 'ready';
    });
  });

  it('one live stream per session: a second gets SESSION_BUSY, a REST turn meanwhile a 409', async () => {
    const id = await start();
    const first = await open(id);
    const second = await openStream(app.baseUrl, id, { key: dev.testKey });
    const busy = await second.next('error');
    expect(busy.code).toBe('SESSION_BUSY');
    await eventually(async () => second.closed?.code === 4409);
    const rest = await api('POST', `/sessions/${id}/turns`, { text: 'hello' });
    expect(rest.status).toBe(409);
    expect(rest.body).toMatchObject({ code: 'CONFLICT' });
    // the first stream is unaffected
    first.sendText('still here?');
    expect((await first.next('turn.recorded')).turn.index).toBe(1);
    first.close();
  });

  it('hostile and broken input: an error event naming the problem, and the call goes on', async () => {
    const id = await start();
    const client = await open(id);
    const errors: string[] = [];
    client.on((m) => {
      if (m.type === 'error') errors.push(`${m.code}: ${m.message}`);
    });
    client.send('{not json');
    client.send('[1,2]');
    client.send(JSON.stringify({ type: 'shout', text: 'hi' }));
    client.send(JSON.stringify({ type: 'input.text' }));
    client.send(JSON.stringify({ type: 'input.text', text: 'hi', extra: true }));
    client.send(JSON.stringify({ type: 'input.text', text: 'x'.repeat(17_000) }));
    client.send(JSON.stringify({ type: 'input.dtmf', digits: '12x' }));
    client.sendAudio(new Int16Array(40_000)); // 80 000 bytes: over 64 KiB
    await eventually(async () => errors.length >= 8);
    expect(errors).toEqual([
      expect.stringMatching(/^INVALID_MESSAGE: /),
      expect.stringMatching(/^INVALID_MESSAGE: /),
      expect.stringMatching(/^UNKNOWN_TYPE: type: must be one of input.text, input.dtmf, interrupt, end/),
      expect.stringMatching(/^INVALID_MESSAGE: text: /),
      expect.stringMatching(/^INVALID_MESSAGE: .*extra/),
      expect.stringMatching(/^FRAME_TOO_LARGE: /),
      expect.stringMatching(/^INVALID_MESSAGE: digits: must be keypad keys/),
      expect.stringMatching(/^FRAME_TOO_LARGE: /),
    ]);
    // audio without a speech-to-text provider: said once; text still works
    client.sendAudio(new Int16Array(320));
    client.sendAudio(new Int16Array(320));
    expect((await client.next('error', (m) => m.code === 'STT_NOT_CONFIGURED')).code).toBe(
      'STT_NOT_CONFIGURED',
    );
    client.sendText('still there?');
    expect((await client.next('turn.recorded')).turn.text).toBe('still there?');
    expect(errors.filter((e) => e.startsWith('STT_NOT_CONFIGURED'))).toHaveLength(1);
    expect(client.closed).toBeUndefined();
    client.close();
  });

  it('keypad: input.dtmf keys are collected as a phone call collects them, then taken as the caller’s input', async () => {
    const id = await start();
    const client = await open(id);
    client.send(JSON.stringify({ type: 'input.dtmf', digits: '12' }));
    client.send(JSON.stringify({ type: 'input.dtmf', digits: '34#' }));
    expect((await client.next('turn.recorded')).turn.text).toBe('keypad: 1234');
    client.send(JSON.stringify({ type: 'input.dtmf', digits: '9' })); // no terminator: the pause ends it
    expect((await client.next('turn.recorded')).turn.text).toBe('keypad: 9');
    client.close();
  });

  it('end: the session ends (session.ended) and the stream closes', async () => {
    const id = await start();
    const client = await open(id);
    client.sendText('hello');
    await client.next('turn.recorded');
    client.end();
    const ended = await client.next('session.ended');
    expect(ended).toMatchObject({ sessionId: id, reason: 'ended', turnCount: 1 });
    await eventually(async () => client.closed?.code === 1000);
    expect((await api('GET', `/sessions/${id}`)).body.data.status).toBe('ended');
  });
});

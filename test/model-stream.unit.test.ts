import { ModelStreamError, type ModelStreamEvent, streamChatCompletion } from '../src/outbound/model-stream';
import { startLlmDouble } from './support/llm-double';
import { eventually } from './support/receiver';

type LlmDouble = Awaited<ReturnType<typeof startLlmDouble>>;

const REPLY = 'Your order A-1 shipped this morning. It should arrive on Friday. Anything else?';

describe('streamed chat completions (src/outbound/model-stream.ts) against a streaming double', () => {
  let llm: LlmDouble;
  beforeAll(async () => {
    llm = await startLlmDouble();
  });
  afterAll(() => llm.close());

  const stream = (signal: AbortSignal) =>
    streamChatCompletion({
      url: `${llm.baseUrl}/chat/completions`,
      headers: { Authorization: 'Bearer test' },
      body: { model: 'test-model', messages: [{ role: 'user', content: 'where is my order?' }] },
      signal,
    });

  it('yields the text as it arrives, then the whole answer; asks with stream: true', async () => {
    llm.script(() => ({ content: REPLY, delayMs: 50, tokenDelayMs: 15 }));
    const events: ModelStreamEvent[] = [];
    const arrivals: number[] = [];
    const started = Date.now();
    for await (const event of stream(AbortSignal.timeout(10_000))) {
      events.push(event);
      arrivals.push(Date.now() - started);
    }
    const deltas = events.filter((e) => e.type === 'delta').map((e) => (e as { text: string }).text);
    expect(deltas.length).toBe(REPLY.split(' ').length);
    expect(deltas.join('')).toBe(REPLY);
    expect(events.at(-1)).toEqual({ type: 'done', content: REPLY, toolCalls: [], finishReason: 'stop' });
    // the first words reach the caller long before the last one is sent
    expect(arrivals[0]).toBeLessThan(arrivals.at(-2)! - 100);
    expect(llm.requests[0]).toMatchObject({ stream: true, model: 'test-model' });
  });

  it('assembles tool calls whose arguments arrive in pieces', async () => {
    llm.script(() => ({
      content: null,
      tool_calls: [
        { id: 'call_1', name: 'orders__lookup_order', arguments: { orderId: 'A-1' } },
        { id: 'call_2', name: 'orders__track', arguments: { carrier: 'DHL', priority: true } },
      ],
    }));
    const events: ModelStreamEvent[] = [];
    for await (const event of stream(AbortSignal.timeout(10_000))) events.push(event);
    expect(events).toEqual([
      {
        type: 'done',
        content: null,
        finishReason: 'tool_calls',
        toolCalls: [
          {
            id: 'call_1',
            type: 'function',
            function: { name: 'orders__lookup_order', arguments: '{"orderId":"A-1"}' },
          },
          {
            id: 'call_2',
            type: 'function',
            function: { name: 'orders__track', arguments: '{"carrier":"DHL","priority":true}' },
          },
        ],
      },
    ]);
  });

  it('aborting closes the connection: the provider stops generating', async () => {
    llm.script(() => ({ content: REPLY, tokenDelayMs: 20 }));
    const controller = new AbortController();
    const seen: string[] = [];
    await expect(
      (async () => {
        for await (const event of stream(controller.signal)) {
          if (event.type === 'delta') seen.push(event.text);
          if (seen.length === 3) controller.abort();
        }
      })(),
    ).rejects.toThrow();
    await eventually(async () => llm.closedStreams.length === 1, 5_000);
    const [closed] = llm.closedStreams;
    expect(closed.tokensSent).toBeLessThan(closed.tokensPlanned);
  });

  it('a caller that stops listening closes the connection too', async () => {
    llm.script(() => ({ content: REPLY, tokenDelayMs: 20 }));
    for await (const event of stream(AbortSignal.timeout(10_000))) {
      if (event.type === 'delta') break;
    }
    await eventually(async () => llm.closedStreams.length === 1, 5_000);
    expect(llm.closedStreams[0].tokensSent).toBeLessThan(llm.closedStreams[0].tokensPlanned);
  });

  it('a refusal is a ModelStreamError with the status', async () => {
    llm.script(() => ({ status: 503 }));
    const refused = (async () => {
      for await (const _ of stream(AbortSignal.timeout(10_000))) {
        // nothing arrives
      }
    })();
    await expect(refused).rejects.toMatchObject({ name: 'ModelStreamError', status: 503 });
    await expect(refused).rejects.toBeInstanceOf(ModelStreamError);
  });
});

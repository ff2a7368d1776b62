import http from 'node:http';

/** What a scripted double answers: an assistant message (content and/or tool calls), or an HTTP failure. */
export type LlmReply = (
  | { content?: string | null; tool_calls?: { id: string; name: string; arguments: unknown }[] }
  | { status: number; raw?: string }
) & { /** Answer only after this long. */ delayMs?: number };

/** A request as the double received it. */
export interface LlmRequest {
  model: string;
  messages: { role: string; content: string | null; tool_calls?: unknown[]; tool_call_id?: string }[];
  tools?: { type: 'function'; function: { name: string; description: string; parameters: unknown } }[];
}

/**
 * A local double of an OpenAI-compatible provider (the one component that cannot run here): answers
 * POST /v1/chat/completions with `echo: <last user message>`, or with what `script` returns for the
 * request (tool calls, a failure), and records each request's body.
 */
export async function startLlmDouble(): Promise<{
  baseUrl: string;
  requests: any[];
  /** Scripts the answers (undefined: echo again), counting requests afresh (`requests` is emptied). */
  script(fn: ((request: LlmRequest, index: number) => LlmReply) | undefined): void;
  close(): Promise<void>;
}> {
  const requests: any[] = [];
  let scripted: ((request: LlmRequest, index: number) => LlmReply) | undefined;
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
      res.writeHead(404).end();
      return;
    }
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as LlmRequest;
    requests.push(body);
    const reply: LlmReply = scripted
      ? scripted(body, requests.length - 1)
      : { content: `echo: ${body.messages.at(-1)?.content ?? ''}` };
    if (reply.delayMs) await new Promise((r) => setTimeout(r, reply.delayMs));
    if (res.destroyed) return;
    if ('status' in reply) {
      res
        .writeHead(reply.status, { 'content-type': 'application/json' })
        .end(reply.raw ?? '{"error":"boom"}');
      return;
    }
    const message = {
      role: 'assistant',
      content: reply.content ?? null,
      ...(reply.tool_calls
        ? {
            tool_calls: reply.tool_calls.map((c) => ({
              id: c.id,
              type: 'function',
              function: {
                name: c.name,
                arguments: typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments),
              },
            })),
          }
        : {}),
    };
    res.writeHead(200, { 'content-type': 'application/json' }).end(
      JSON.stringify({
        id: 'chatcmpl-test',
        object: 'chat.completion',
        choices: [{ index: 0, message, finish_reason: reply.tool_calls ? 'tool_calls' : 'stop' }],
      }),
    );
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as { port: number }).port}/v1`,
    requests,
    script: (fn) => {
      scripted = fn;
      requests.length = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * A scripted model for an order desk with an `orders` MCP server: a question about an order → the
 * `orders__lookup_order` tool for order A-1, then an answer from its result; anything else → `greeting`.
 */
export const orderDeskModel =
  (greeting: string) =>
  (req: LlmRequest): LlmReply => {
    const toolAnswer = req.messages.find((m) => m.role === 'tool');
    if (toolAnswer)
      return { content: `Your order is ${JSON.parse(toolAnswer.content ?? '{}').result?.status}.` };
    if (/order/i.test(req.messages.at(-1)?.content ?? '')) {
      return { tool_calls: [{ id: 'call_1', name: 'orders__lookup_order', arguments: { orderId: 'A-1' } }] };
    }
    return { content: greeting };
  };

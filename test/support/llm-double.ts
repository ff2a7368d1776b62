import http from 'node:http';

/** What a scripted double answers: an assistant message (content and/or tool calls), or an HTTP failure. */
export type LlmReply = (
  | { content?: string | null; tool_calls?: { id: string; name: string; arguments: unknown }[] }
  | { status: number; raw?: string }
) & {
  /** Answer only after this long (streamed: the first token). */
  delayMs?: number;
  /** Streamed (`stream: true`): the time between tokens (a token is a word of the content). */
  tokenDelayMs?: number;
};

/** A streamed answer the client closed before it was whole: which request, and how many tokens it got. */
export interface ClosedStream {
  index: number;
  tokensSent: number;
  tokensPlanned: number;
}

/** A request as the double received it. */
export interface LlmRequest {
  model: string;
  messages: { role: string; content: string | null; tool_calls?: unknown[]; tool_call_id?: string }[];
  tools?: { type: 'function'; function: { name: string; description: string; parameters: unknown } }[];
}

/**
 * A local double of an OpenAI-compatible provider (the one component that cannot run here): answers
 * POST /v1/chat/completions with `echo: <last user message>`, or with what `script` returns for the
 * request (tool calls, a failure), and records each request's body. A request with `stream: true` is
 * answered as a hosted model streams (server-sent chat-completion chunks, one word at a time, then
 * `[DONE]`); a stream the client closes early is recorded in `closedStreams`.
 */
export async function startLlmDouble(): Promise<{
  baseUrl: string;
  requests: any[];
  /** Each request's Authorization header, in order. */
  authorizations: (string | undefined)[];
  closedStreams: ClosedStream[];
  /** Scripts the answers (undefined: echo again), counting requests afresh (`requests` is emptied). */
  script(fn: ((request: LlmRequest, index: number) => LlmReply) | undefined): void;
  close(): Promise<void>;
}> {
  const requests: any[] = [];
  const authorizations: (string | undefined)[] = [];
  const closedStreams: ClosedStream[] = [];
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
    authorizations.push(req.headers.authorization);
    const reply: LlmReply = scripted
      ? scripted(body, requests.length - 1)
      : { content: `echo: ${body.messages.at(-1)?.content ?? ''}` };
    if ((body as { stream?: boolean }).stream && !('status' in reply)) {
      await streamReply(
        res,
        reply,
        (closed) => closedStreams.push({ index: requests.length - 1, ...closed }),
        usageAsked(body) ? promptTokens(body) : undefined,
      );
      return;
    }
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
    authorizations,
    closedStreams,
    script: (fn) => {
      scripted = fn;
      requests.length = 0;
      authorizations.length = 0;
      closedStreams.length = 0;
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

/** Whether the request asked for its usage in the stream (`stream_options: { include_usage: true }`). */
const usageAsked = (body: unknown) =>
  (body as { stream_options?: { include_usage?: boolean } }).stream_options?.include_usage === true;

/** The double's count of a prompt's tokens: the words of its messages. */
export const promptTokens = (body: LlmRequest) =>
  body.messages.reduce((n, m) => n + (String(m.content ?? '').match(/\S+/g)?.length ?? 0), 0);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Writes `reply` as an OpenAI-compatible stream of chat-completion chunks, a word at a time. */
async function streamReply(
  res: http.ServerResponse,
  reply: Exclude<LlmReply, { status: number }>,
  onClosedEarly: (closed: { tokensSent: number; tokensPlanned: number }) => void,
  /** The prompt's tokens when usage was asked for (`stream_options.include_usage`), else undefined. */
  prompt?: number,
): Promise<void> {
  const tokens = (reply.content ?? '').match(/\S+\s*/g) ?? [];
  const calls = reply.tool_calls ?? [];
  let sent = 0;
  let finished = false;
  res.on('close', () => {
    if (!finished) onClosedEarly({ tokensSent: sent, tokensPlanned: tokens.length });
  });
  const chunk = (delta: unknown, finish: string | null = null) =>
    `data: ${JSON.stringify({ id: 'chatcmpl-test', object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  if (reply.delayMs) await sleep(reply.delayMs);
  for (const token of tokens) {
    if (res.destroyed) return;
    res.write(chunk({ role: 'assistant', content: token }));
    sent++;
    if (reply.tokenDelayMs) await sleep(reply.tokenDelayMs);
  }
  calls.forEach((c, index) => {
    const args = typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments);
    const half = Math.ceil(args.length / 2);
    res.write(
      chunk({
        tool_calls: [
          { index, id: c.id, type: 'function', function: { name: c.name, arguments: args.slice(0, half) } },
        ],
      }),
    );
    res.write(chunk({ tool_calls: [{ index, function: { arguments: args.slice(half) } }] }));
  });
  if (res.destroyed) return;
  res.write(chunk({}, calls.length ? 'tool_calls' : 'stop'));
  if (prompt !== undefined) {
    // as OpenAI does: a last chunk with no choices and the request's usage
    const usage = {
      prompt_tokens: prompt,
      completion_tokens: tokens.length,
      total_tokens: prompt + tokens.length,
    };
    res.write(
      `data: ${JSON.stringify({ id: 'chatcmpl-test', object: 'chat.completion.chunk', choices: [], usage })}\n\n`,
    );
  }
  res.end('data: [DONE]\n\n');
  finished = true;
}

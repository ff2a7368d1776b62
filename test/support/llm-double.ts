import http from 'node:http';

/**
 * A local double of an OpenAI-compatible provider (the one component that cannot run here): answers
 * POST /v1/chat/completions with `echo: <last user message>`, and records each request's body.
 */
export async function startLlmDouble(): Promise<{
  baseUrl: string;
  requests: unknown[];
  close(): Promise<void>;
}> {
  const requests: unknown[] = [];
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
      res.writeHead(404).end();
      return;
    }
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { messages: { content: string }[] };
    requests.push(body);
    const content = `echo: ${body.messages.at(-1)?.content ?? ''}`;
    res.writeHead(200, { 'content-type': 'application/json' }).end(
      JSON.stringify({
        id: 'chatcmpl-test',
        object: 'chat.completion',
        choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
      }),
    );
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as { port: number }).port}/v1`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

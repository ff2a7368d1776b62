import http from 'node:http';

/** How one oversized answer ended: bytes the server wrote, and whether it got to finish. */
export interface HostileAnswer {
  path: string;
  written: number;
  finished: boolean;
}

export interface HostileServer {
  /** An MCP server (Streamable HTTP) whose tools/call answers `bytes` of JSON. */
  mcpUrl: string;
  /** The same, answering tools/call as one server-sent event of `bytes`. */
  mcpSseUrl: string;
  /** An MCP server whose tools/list (instead of tools/call) answers `bytes` of JSON. */
  mcpListUrl: string;
  /** A webhook tool endpoint answering `bytes` of JSON. */
  toolUrl: string;
  /** Every oversized answer so far, once its connection closed. */
  answers: HostileAnswer[];
  /** Resolves once `count` oversized answers have ended. */
  waitForAnswers(count: number): Promise<HostileAnswer[]>;
  close(): Promise<void>;
}

/**
 * A server that answers too much: the MCP handshake and tools/list are ordinary, tools/call (and
 * the webhook tool path) stream `bytes` of a valid JSON answer as fast as the client reads it, so
 * a client that reads answers whole gets every byte, and one that stops at a cap cuts it short.
 */
export async function startHostileServer(bytes: number): Promise<HostileServer> {
  const answers: HostileAnswer[] = [];
  const waiters: { count: number; resolve: () => void }[] = [];
  const ended = (answer: HostileAnswer) => {
    answers.push(answer);
    for (const w of waiters.filter((w) => answers.length >= w.count)) {
      waiters.splice(waiters.indexOf(w), 1);
      w.resolve();
    }
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '/';
      if (path === '/tool') return streamAnswer(res, path, bytes, 'json', undefined, ended);
      if (req.method === 'GET') return void res.writeHead(405).end();
      if (req.method === 'DELETE') return void res.writeHead(200).end();
      const message = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
      if (message.id === undefined) return void res.writeHead(202).end();
      if (message.method === 'initialize') {
        return json(res, message.id, {
          protocolVersion: message.params?.protocolVersion ?? '2025-06-18',
          capabilities: { tools: {} },
          serverInfo: { name: 'hostile', version: '1.0.0' },
        });
      }
      if (message.method === 'tools/list' && path === '/mcp-list') {
        return streamAnswer(res, path, bytes, 'json', message.id, ended);
      }
      if (message.method === 'tools/list') {
        return json(res, message.id, { tools: [{ name: 'dump', inputSchema: { type: 'object' } }] });
      }
      const mode = path === '/mcp-sse' ? 'sse' : 'json';
      streamAnswer(res, path, bytes, mode, message.id, ended);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  return {
    mcpUrl: `${base}/mcp`,
    mcpSseUrl: `${base}/mcp-sse`,
    mcpListUrl: `${base}/mcp-list`,
    toolUrl: `${base}/tool`,
    answers,
    waitForAnswers: (count) =>
      new Promise((resolve) => {
        if (answers.length >= count) return resolve(answers);
        waiters.push({ count, resolve: () => resolve(answers) });
      }),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function json(res: http.ServerResponse, id: unknown, result: unknown): void {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', id, result }));
}

/**
 * Writes `{"jsonrpc":"2.0","id":…,"result":{"content":[{"type":"text","text":"xxx…"}]}}` (or, for a
 * webhook tool, `{"text":"xxx…"}`) of about `bytes`, as one server-sent event in `sse` mode.
 */
function streamAnswer(
  res: http.ServerResponse,
  path: string,
  bytes: number,
  mode: 'json' | 'sse',
  id: unknown,
  ended: (answer: HostileAnswer) => void,
): void {
  const head =
    id === undefined
      ? '{"text":"'
      : `${mode === 'sse' ? 'event: message\ndata: ' : ''}{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{"content":[{"type":"text","text":"`;
  const foot = id === undefined ? '"}' : `"}]}}${mode === 'sse' ? '\n\n' : ''}`;
  const chunk = Buffer.alloc(64 * 1024, 'x');
  let written = 0;
  res.on('close', () => ended({ path, written, finished: res.writableFinished }));
  res.writeHead(200, { 'content-type': mode === 'sse' ? 'text/event-stream' : 'application/json' });
  res.write(head);
  const pump = () => {
    while (written < bytes && !res.destroyed) {
      written += chunk.length;
      if (!res.write(chunk)) return void res.once('drain', pump);
    }
    if (!res.destroyed) res.end(foot);
  };
  pump();
}

import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

export interface McpTestServer {
  url: string;
  /** Headers of every MCP request received (to check substituted secrets and bearer tokens). */
  requests: http.IncomingHttpHeaders[];
  /** Every tools/call received: tool name and arguments. */
  calls: { name: string; arguments: Record<string, unknown> }[];
  /** The JSON-RPC method of every POST received (initialize, notifications/initialized, tools/call…). */
  methods: string[];
  /** Stateful mode: forgets every session, as a restarted server would (requests then get 404). */
  dropSessions(): void;
  /** Stateful mode: sessions the client ended with DELETE. */
  terminated: string[];
  close(): Promise<void>;
}

/**
 * A real MCP server (official SDK, Streamable HTTP) with a few tools: one slow, one failing.
 * Stateless unless `stateful` (then sessions with ids, as a server keeping per-client state has).
 */
export async function startMcpTestServer(
  opts: { requireHeader?: [string, string]; stateful?: boolean } = {},
): Promise<McpTestServer> {
  const requests: http.IncomingHttpHeaders[] = [];
  const calls: McpTestServer['calls'] = [];
  const methods: string[] = [];
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const terminated: string[] = [];
  const build = () => {
    const server = new McpServer({ name: 'orders-test-server', version: '1.2.3' });
    server.registerTool(
      'add',
      {
        description: 'Adds two numbers',
        inputSchema: { a: z.number(), b: z.number() },
        outputSchema: { sum: z.number() },
      },
      async ({ a, b }) => ({
        content: [{ type: 'text', text: String(a + b) }],
        structuredContent: { sum: a + b },
      }),
    );
    server.registerTool(
      'lookup_order',
      { description: 'Order status by id', inputSchema: { orderId: z.string() } },
      async ({ orderId }) => ({
        content: [{ type: 'text', text: JSON.stringify({ orderId, status: 'shipped' }) }],
      }),
    );
    server.registerTool('slow', { description: 'Answers after 300 ms' }, async () => {
      await new Promise((r) => setTimeout(r, 300));
      return { content: [{ type: 'text', text: 'done slowly' }] };
    });
    server.registerTool(
      'sleep_ms',
      { description: 'Answers after `ms` milliseconds', inputSchema: { ms: z.number() } },
      async ({ ms }) => {
        await new Promise((r) => setTimeout(r, ms));
        return { content: [{ type: 'text', text: JSON.stringify({ slept: ms }) }] };
      },
    );
    server.registerTool('fails', { description: 'Always fails' }, async () => {
      throw new Error('inventory backend unavailable');
    });
    return server;
  };
  const httpServer = http.createServer(async (req, res) => {
    requests.push(req.headers);
    if (opts.requireHeader && req.headers[opts.requireHeader[0]] !== opts.requireHeader[1]) {
      res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"unauthorized"}');
      return;
    }
    if (opts.stateful) {
      await handleStateful(req, res);
      return;
    }
    if (req.method !== 'POST') {
      res.writeHead(405).end();
      return;
    }
    const body = await readBody(req);
    const server = build();
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    res.on('close', () => {
      transport.close();
      server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  });
  const readBody = async (req: http.IncomingMessage) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    methods.push(body?.method);
    if (body?.method === 'tools/call')
      calls.push({ name: body.params.name, arguments: body.params.arguments ?? {} });
    return body;
  };
  const handleStateful = async (req: http.IncomingMessage, res: http.ServerResponse) => {
    const sessionId = req.headers['mcp-session-id'] as string | undefined;
    if (req.method === 'GET') {
      res.writeHead(405).end(); // no server-initiated stream
      return;
    }
    if (req.method === 'DELETE') {
      if (sessionId && sessions.delete(sessionId)) terminated.push(sessionId);
      res.writeHead(sessionId ? 200 : 400).end();
      return;
    }
    const body = await readBody(req);
    const existing = sessionId ? sessions.get(sessionId) : undefined;
    if (existing) {
      await existing.handleRequest(req, res, body);
      return;
    }
    if (sessionId || body?.method !== 'initialize') {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end('{"jsonrpc":"2.0","error":{"code":-32001,"message":"Session not found"},"id":null}');
      return;
    }
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      enableJsonResponse: true,
      onsessioninitialized: (id) => {
        sessions.set(id, transport);
      },
    });
    await build().connect(transport);
    await transport.handleRequest(req, res, body);
  };
  await new Promise<void>((r) => httpServer.listen(0, '127.0.0.1', r));
  const port = (httpServer.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    requests,
    calls,
    methods,
    terminated,
    dropSessions: () => sessions.clear(),
    close: () =>
      new Promise<void>((resolve) => {
        httpServer.closeAllConnections();
        httpServer.close(() => resolve());
      }),
  };
}

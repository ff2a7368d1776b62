import http from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';
import { DEMO_ORDERS, DEMO_STORE_HOURS, type DemoDay } from './demo-data';

/**
 * The demo shop's MCP server (docs/tools.md "MCP servers"): real MCP over Streamable HTTP (the official
 * SDK, stateless, JSON answers) with two tools, `lookup_order` and `store_hours`, over the demo
 * shop's data. `npm start` serves it on its own port (DEMO_MCP_PORT) so that a first agent can use a
 * tool with nothing else installed; production processes never start it.
 */
export function demoMcpServer(): McpServer {
  const server = new McpServer({ name: 'demo-shop', version: '1.0.0' });
  server.registerTool(
    'lookup_order',
    {
      title: 'Look up an order',
      description:
        'The status of a demo shop order by its number (A-1001 to A-1005): items, status, delivery date',
      inputSchema: { orderId: z.string().min(1).max(40).describe('The order number, for example A-1002') },
      outputSchema: {
        found: z.boolean(),
        orderId: z.string(),
        status: z.string().optional(),
        items: z.array(z.string()).optional(),
        expectedDelivery: z.string().optional(),
      },
    },
    async ({ orderId }) => {
      const id = orderId.trim().toUpperCase();
      const order = DEMO_ORDERS[id];
      const answer = order ? { found: true, orderId: id, ...order } : { found: false, orderId: id };
      return { content: [{ type: 'text', text: JSON.stringify(answer) }], structuredContent: answer };
    },
  );
  server.registerTool(
    'store_hours',
    {
      title: 'Store hours',
      description: "The demo shop's opening hours, for one day of the week or the whole week",
      inputSchema: {
        day: z
          .enum(['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'])
          .optional()
          .describe('A day of the week; omit it for the whole week'),
      },
      outputSchema: { hours: z.record(z.string(), z.string()) },
    },
    async ({ day }) => {
      const hours = day ? { [day]: DEMO_STORE_HOURS[day as DemoDay] } : { ...DEMO_STORE_HOURS };
      return { content: [{ type: 'text', text: JSON.stringify({ hours }) }], structuredContent: { hours } };
    },
  );
  return server;
}

/** Serves the demo MCP server at `http://host:port/mcp`; answers its URL and a way to stop it. */
export async function serveDemoMcp(opts: { host: string; port: number }) {
  const httpServer = http.createServer((req, res) => {
    void handle(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
      res.end('{"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error"},"id":null}');
    });
  });
  await new Promise<void>((resolve, reject) => {
    httpServer.once('error', reject);
    httpServer.listen(opts.port, opts.host, resolve);
  });
  const address = httpServer.address() as { port: number };
  const host = opts.host === '0.0.0.0' || opts.host === '::' ? 'localhost' : opts.host;
  return {
    url: `http://${host}:${address.port}/mcp`,
    close: () => new Promise<void>((resolve) => httpServer.close(() => resolve())),
  };
}

/** One stateless exchange: a fresh server and transport per request, as the SDK's stateless example. */
async function handle(req: http.IncomingMessage, res: http.ServerResponse) {
  if (new URL(req.url ?? '/', 'http://demo').pathname !== '/mcp') {
    res
      .writeHead(404, { 'content-type': 'application/json' })
      .end('{"error":"Not found: the server is at /mcp"}');
    return;
  }
  if (req.method !== 'POST') {
    res.writeHead(405, { allow: 'POST' }).end();
    return;
  }
  const server = demoMcpServer();
  const transport = new StreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  res.on('close', () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(req, res);
}

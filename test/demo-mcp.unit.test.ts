import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { serveDemoMcp } from '../src/demo/demo-mcp-server';

describe('the demo MCP server (npm start, DEMO_MCP_PORT)', () => {
  let demo: Awaited<ReturnType<typeof serveDemoMcp>>;
  let client: Client;
  beforeAll(async () => {
    demo = await serveDemoMcp({ host: '127.0.0.1', port: 0 });
    client = new Client({ name: 'test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(demo.url)));
  });
  afterAll(async () => {
    await client.close();
    await demo.close();
  });

  it('speaks MCP over Streamable HTTP at /mcp, with its two tools and their schemas', async () => {
    expect(demo.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['lookup_order', 'store_hours']);
    expect(tools[0].inputSchema).toMatchObject({ type: 'object', required: ['orderId'] });
  });

  it('looks up an order (any case), and says when there is none', async () => {
    const found = await client.callTool({ name: 'lookup_order', arguments: { orderId: 'a-1002' } });
    expect(found.structuredContent).toEqual({
      found: true,
      orderId: 'A-1002',
      status: 'shipped',
      items: ['Ceramic teapot'],
      expectedDelivery: 'Thursday',
    });
    const missing = await client.callTool({ name: 'lookup_order', arguments: { orderId: 'Z-9' } });
    expect(missing.structuredContent).toEqual({ found: false, orderId: 'Z-9' });
  });

  it("answers the store's hours for a day or the week, and refuses a day that is not one", async () => {
    const sunday = await client.callTool({ name: 'store_hours', arguments: { day: 'sunday' } });
    expect(sunday.structuredContent).toEqual({ hours: { sunday: 'closed' } });
    const week = await client.callTool({ name: 'store_hours', arguments: {} });
    expect(Object.keys((week.structuredContent as { hours: object }).hours)).toHaveLength(7);
    const bad = await client.callTool({ name: 'store_hours', arguments: { day: 'someday' } });
    expect(bad.isError).toBe(true);
  });

  it('answers 404 off /mcp and 405 to a GET', async () => {
    expect((await fetch(demo.url.replace('/mcp', '/other'), { method: 'POST' })).status).toBe(404);
    expect((await fetch(demo.url)).status).toBe(405);
  });
});

import { serveDemoMcp } from '../src/demo/demo-mcp-server';
import { completeManifest } from './support/personas';
import { call, newDeveloper, startTestApp, type TestApp } from './support/test-app';

describe('GET /getting-started: the first five minutes, ticked from real state', () => {
  let app: TestApp;
  let demo: Awaited<ReturnType<typeof serveDemoMcp>>;
  beforeAll(async () => {
    app = await startTestApp();
    demo = await serveDemoMcp({ host: '127.0.0.1', port: 0 });
  });
  afterAll(async () => {
    await demo.close();
    await app.close();
  });

  it('starts with the keys the account has, then ticks each step as it becomes true', async () => {
    const dev = await newDeveloper(app, 'getting-started');
    const checklist = async () =>
      (await call(app.baseUrl, 'GET', '/api/v1/developers/getting-started', { token: dev.token })).body;
    const done = async () =>
      ((await checklist()).steps as { id: string; done: boolean }[]).filter((s) => s.done).map((s) => s.id);
    const first = await checklist();
    expect(first).toMatchObject({ done: 1, total: 6, demoMcpUrl: null });
    expect(first.steps.map((s: { id: string }) => s.id)).toEqual([
      'key',
      'persona',
      'voice',
      'talk',
      'tool',
      'webhook',
    ]);
    expect(await done()).toEqual(['key']); // newDeveloper made keys

    const { voice: _voice, ...voiceless } = completeManifest('gs-agent');
    const persona = await call(app.baseUrl, 'POST', '/api/v1/developers/personas', {
      token: dev.token,
      body: { manifest: voiceless },
    });
    expect(await done()).toEqual(['key', 'persona']);
    await call(app.baseUrl, 'PUT', `/api/v1/developers/personas/${persona.body.persona.id}`, {
      token: dev.token,
      body: { manifest: completeManifest('gs-agent') },
    });
    expect(await done()).toEqual(['key', 'persona', 'voice']);

    const platform = (method: string, path: string, body?: unknown) =>
      call(app.baseUrl, method, `/api/v2/developers${path}`, { token: dev.testKey, body });
    const session = await platform('POST', '/sessions', { personaId: persona.body.persona.id, userId: 'u1' });
    expect(await done()).not.toContain('talk'); // a session without a turn is not a conversation
    expect(
      (await platform('POST', `/sessions/${session.body.data.id}/turns`, { text: 'hello' })).status,
    ).toBe(200);
    expect(await done()).toContain('talk');

    // the demo MCP server, where a process serves it, is the first tool: given once a persona names it
    app.ctx.demoMcpUrl = demo.url;
    expect((await checklist()).demoMcpUrl).toBe(demo.url);
    const server = await platform('POST', '/mcp-servers', { name: 'demo-shop', endpoint: demo.url });
    expect(server.body.data).toMatchObject({ status: 'connected', toolCount: 2 });
    expect(await done()).not.toContain('tool');
    await call(app.baseUrl, 'PUT', `/api/v1/developers/personas/${persona.body.persona.id}`, {
      token: dev.token,
      body: {
        manifest: {
          ...completeManifest('gs-agent'),
          tools: [{ type: 'mcp_server', id: server.body.data.id }],
        },
      },
    });
    expect(await done()).toContain('tool');

    await platform('POST', '/webhooks', {
      name: 'events',
      url: 'https://example.com/hook',
      events: ['session.ended'],
    });
    expect(await checklist()).toMatchObject({ done: 6, total: 6 });
    app.ctx.demoMcpUrl = undefined;
  });
});

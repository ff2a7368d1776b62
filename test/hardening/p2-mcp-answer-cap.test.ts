import { type HostileServer, startHostileServer } from '../support/hostile-server';
import { call, type Developer, type TestApp, withAppAndDeveloper } from '../support/test-app';

let app: TestApp;
let dev: Developer;
withAppAndDeveloper(
  (a, d) => {
    app = a;
    dev = d;
  },
  { RATE_LIMITS: 'off' },
  { plan: 'enterprise' },
);

/** Each hostile answer: twelve times the MCP cap (ANSWER_LIMITS.mcpServer, 1 MiB). */
const ANSWER_BYTES = 12 * 1024 * 1024;

let hostile: HostileServer;
beforeAll(async () => {
  hostile = await startHostileServer(ANSWER_BYTES);
});
afterAll(() => hostile.close());

const api = (method: string, path: string, body?: unknown) =>
  call(app.baseUrl, method, `/api/v2/developers${path}`, { token: dev.liveKey, body });

/** An MCP tool on a server registered at `endpoint`. */
async function mcpTool(name: string, endpoint: string): Promise<string> {
  const server = await api('POST', '/mcp-servers', { name, transport: 'http', endpoint });
  expect(server.status).toBe(201);
  const tool = await api('POST', '/tools', {
    name,
    type: 'mcp',
    config: { serverId: server.body.data.id, toolName: 'dump' },
  });
  expect(tool.status).toBe(201);
  return tool.body.data.id;
}

/**
 * P2: an MCP server's answer had no size cap: a 50 MB answer was read and parsed whole (RSS +200 MB,
 * /healthz stalled). Now every MCP answer is read through the MCP reader's cap: past it the
 * connection is closed and the call fails with RESPONSE_TOO_LARGE at once (a JSON answer, and one
 * streamed as a server-sent event, which the MCP client reads apart from the call waiting for it).
 */
describe('P2: MCP answers over the cap', () => {
  it.each([
    ['a JSON answer', 'json'],
    ['an answer streamed as an event', 'sse'],
  ])(
    '4 concurrent calls to servers answering 12 MiB: each fails RESPONSE_TOO_LARGE, cut at the cap, /healthz still answers (%s)',
    async (_label, mode) => {
      const endpoint = mode === 'sse' ? hostile.mcpSseUrl : hostile.mcpUrl;
      const tools = await Promise.all([1, 2, 3, 4].map((i) => mcpTool(`hostile-${mode}-${i}`, endpoint)));
      const before = hostile.answers.length;
      const baseline = process.memoryUsage().rss;
      let peak = baseline;
      const sampler = setInterval(() => {
        peak = Math.max(peak, process.memoryUsage().rss);
      }, 10);
      const calls = tools.map((id) => api('POST', `/tools/${id}/test`, { arguments: {} }));
      const health = (async () => {
        const statuses: number[] = [];
        for (let i = 0; i < 5; i++) statuses.push((await fetch(`${app.baseUrl}/healthz`)).status);
        return statuses;
      })();
      const results = await Promise.all(calls);
      clearInterval(sampler);

      for (const res of results) {
        expect(res.status).toBe(200);
        expect(res.body.data).toMatchObject({
          success: false,
          errorCode: 'RESPONSE_TOO_LARGE',
          error: expect.stringMatching(/Response too large/),
        });
        expect(res.body.data.result).toBeUndefined();
      }
      expect(await health).toEqual([200, 200, 200, 200, 200]);
      // the server was cut off near the cap, not read to its end
      const ends = (await hostile.waitForAnswers(before + 4)).slice(before);
      for (const end of ends) {
        expect(end.finished).toBe(false);
        expect(end.written).toBeLessThan(ANSWER_BYTES);
      }
      // the process never held the answers: well under the 48 MiB they came to
      expect(peak - baseline).toBeLessThan(4 * ANSWER_BYTES);
    },
  );

  it('a tools/list past the cap: the refresh is 502 RESPONSE_TOO_LARGE and the server shows the error', async () => {
    const server = await api('POST', '/mcp-servers', {
      name: 'hostile-list',
      transport: 'http',
      endpoint: hostile.mcpListUrl,
    });
    expect(server.status).toBe(201);
    const res = await api('GET', `/mcp-servers/${server.body.data.id}/tools?refresh=true`);
    expect([res.status, res.body.code]).toEqual([502, 'RESPONSE_TOO_LARGE']);
    expect(res.body.error).toMatch(/Response too large/);
    const after = await api('GET', `/mcp-servers/${server.body.data.id}`);
    expect(after.body.data).toMatchObject({ status: 'error', lastError: expect.stringMatching(/too large/) });
  });

  it('an answer within the cap is still the result', async () => {
    const small = await startHostileServer(64 * 1024);
    try {
      const id = await mcpTool('within-cap', small.mcpUrl);
      const res = await api('POST', `/tools/${id}/test`, { arguments: {} });
      expect(res.body.data.success).toBe(true);
      expect((res.body.data.result as string).length).toBeGreaterThanOrEqual(64 * 1024);
    } finally {
      await small.close();
    }
  });
});

import { startWorker } from '../../src/app/runtime';
import { TEST_ADMIN_TOKEN, TEST_ENV } from '../support/env';
import { startLlmDouble } from '../support/llm-double';
import { type McpTestServer, startMcpTestServer } from '../support/mcp-test-server';
import { type CollectedSpan, startOtlpCollector } from '../support/otlp-collector';
import { completeManifest } from '../support/personas';
import { eventually } from '../support/receiver';
import { call, type Developer, newDeveloper, startTestApp, type TestApp } from '../support/test-app';

/**
 * Item 9 of issue 26: OpenTelemetry traces from the HTTP request through the session's workflow and
 * its activity to the outbound call, exported over OTLP to a collector (here an in-process one), and
 * Prometheus metrics an operator can scrape.
 */
let app: TestApp;
let dev: Developer;
let stopWorker: () => Promise<void>;
let collector: Awaited<ReturnType<typeof startOtlpCollector>>;
let llm: Awaited<ReturnType<typeof startLlmDouble>>;
let mcp: McpTestServer;

beforeAll(async () => {
  collector = await startOtlpCollector();
  llm = await startLlmDouble();
  mcp = await startMcpTestServer();
  app = await startTestApp({
    OTEL_EXPORTER_OTLP_ENDPOINT: collector.endpoint,
    OTEL_SERVICE_NAME: 'vp-traced',
    METRICS_PORT: '0',
    LLM_BASE_URL: llm.baseUrl,
    TEMPORAL_TASK_QUEUE: `vp-traces-${process.pid}`,
    RATE_LIMITS: 'off',
  });
  const worker = await startWorker(app.ctx, TEST_ENV.temporalAddress());
  stopWorker = () => worker.stop();
  dev = await newDeveloper(app, 'traces');
});

afterAll(async () => {
  await stopWorker?.();
  await app?.close();
  await Promise.all([collector?.close(), llm?.close(), mcp?.close()]);
});

const live = (method: string, path: string, body?: unknown) =>
  call(app.baseUrl, method, `/api/v2/developers${path}`, { token: dev.liveKey, body });

async function publishedPersona(tools: object[] = []): Promise<string> {
  const created = await call(app.baseUrl, 'POST', '/api/v1/developers/personas', {
    token: dev.token,
    body: { manifest: { ...completeManifest('traced-agent'), tools } },
  });
  const id = created.body.persona.id as string;
  await call(app.baseUrl, 'POST', `/api/v1/developers/personas/${id}/submit`, { token: dev.token });
  await call(app.baseUrl, 'POST', `/api/admin/personas/${id}/review`, {
    token: TEST_ADMIN_TOKEN,
    body: { decision: 'approve' },
  });
  return id;
}

/** Every span of a trace once the spans named `names` have all arrived. */
async function traceWith(traceId: string, names: RegExp[]): Promise<CollectedSpan[]> {
  return eventually(async () => {
    await app.ctx.tracing.flush();
    const trace = collector.spans.filter((s) => s.traceId === traceId);
    return names.every((n) => trace.some((s) => n.test(s.name))) && trace;
  });
}

describe('traces', () => {
  it('one turn with a tool call is one trace: the request, the turn, the workflow, the activity and its call', async () => {
    const server = await live('POST', '/mcp-servers', {
      name: 'orders',
      transport: 'http',
      endpoint: mcp.url,
    });
    expect(server.status).toBe(201);
    const session = await live('POST', '/sessions', {
      personaId: await publishedPersona([{ type: 'mcp_server', id: server.body.data.id }]),
      userId: 'caller',
    });
    expect(session.status).toBe(201);
    const sessionId = session.body.data.id as string;
    llm.script((req, i) =>
      i === 0
        ? { tool_calls: [{ id: 'call_1', name: 'orders__lookup_order', arguments: { orderId: 'A-42' } }] }
        : {
            content: `Your order is ${JSON.parse(req.messages.find((m) => m.role === 'tool')!.content!).result.status}.`,
          },
    );
    const turn = await live('POST', `/sessions/${sessionId}/turns`, { text: 'Where is my order A-42?' });
    expect(turn.status).toBe(200);
    expect(turn.body.data.actions[0]).toMatchObject({ type: 'tool', success: true });

    await app.ctx.tracing.flush();
    const request = await eventually(async () =>
      collector.spans.find((s) => s.name === 'POST /api/v2/developers/sessions/:id/turns'),
    );
    expect(request.attributes).toMatchObject({
      'http.response.status_code': 200,
      'voice.account_id': dev.publisherId,
    });
    const trace = await traceWith(request.traceId, [
      /^voice\.turn$/,
      /^HandleUpdate:/,
      /^RunActivity:/,
      /^HTTP POST$/,
    ]);
    const turnSpan = trace.find((s) => s.name === 'voice.turn')!;
    expect(turnSpan.attributes).toMatchObject({ 'voice.session_id': sessionId, 'voice.turn_route': 'llm' });
    expect(turnSpan.parentSpanId).toBe(request.spanId);
    const activity = trace.find((s) => s.name.startsWith('RunActivity:'))!;
    expect(activity.attributes).toMatchObject({ temporalWorkflowId: sessionId });
    // the outbound calls: the model's from the turn (API), the MCP server's from the activity (worker)
    const calls = trace.filter((s) => s.name === 'HTTP POST');
    const llmHost = new URL(llm.baseUrl).host;
    const mcpHost = new URL(mcp.url).host;
    expect(calls.find((s) => s.attributes['server.address'] === llmHost)?.parentSpanId).toBe(turnSpan.spanId);
    const toolCall = calls.find((s) => s.attributes['server.address'] === mcpHost);
    expect(toolCall?.attributes['http.response.status_code']).toBe(200);
    const ancestors = (span: CollectedSpan): string[] => {
      const parent = trace.find((s) => s.spanId === span.parentSpanId);
      return parent ? [parent.name, ...ancestors(parent)] : [];
    };
    expect(ancestors(toolCall!)).toContain(activity.name);
    // the API's spans and the worker's spans (the workflow's through its sink) are one trace
    const parents = new Set(trace.map((s) => s.spanId));
    expect(trace.filter((s) => s.parentSpanId && !parents.has(s.parentSpanId))).toEqual([]);
    expect(new Set(trace.map((s) => s.service))).toEqual(new Set(['vp-traced']));
  });

  it('continues a caller’s W3C traceparent', async () => {
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const res = await fetch(`${app.baseUrl}/api/v2/developers/webhooks`, {
      headers: { authorization: `Bearer ${dev.liveKey}`, traceparent: `00-${traceId}-00f067aa0ba902b7-01` },
    });
    expect(res.status).toBe(200);
    const [span] = await traceWith(traceId, [/^GET \/api\/v2\/developers\/webhooks$/]);
    expect(span.parentSpanId).toBe('00f067aa0ba902b7');
  });
});

describe('metrics', () => {
  it('are served on METRICS_PORT and at /metrics with the admin token only', async () => {
    await live('GET', '/webhooks');
    expect((await live('GET', '/webhooks/wh_missing')).status).toBe(404);
    const port = (app.ctx as { metricsPort?: number }).metricsPort;
    const scraped = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    expect(scraped).toMatch(
      /http_requests_total\{method="GET",route="\/api\/v2\/developers\/webhooks",status="200"\} \d+/,
    );
    // an error answer keeps its route's template (not the raw path, not a lost base path)
    expect(scraped).toMatch(
      /http_requests_total\{method="GET",route="\/api\/v2\/developers\/webhooks\/:id",status="404"\} 1/,
    );
    expect(scraped).toContain('http_request_duration_seconds_bucket');
    expect(scraped).toMatch(/voice_turn_duration_seconds_count\{route="llm"\} [1-9]/);
    expect(scraped).toMatch(
      /temporal_activity_schedule_to_start_seconds_count\{activity="[a-zA-Z]+"\} [1-9]/,
    );
    expect(scraped).toMatch(/outbox_lag_seconds \d/);

    expect((await fetch(`${app.baseUrl}/metrics`)).status).toBe(401);
    const withToken = await fetch(`${app.baseUrl}/metrics`, {
      headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
    });
    expect(withToken.status).toBe(200);
    expect(withToken.headers.get('content-type')).toContain('text/plain');
    expect(await withToken.text()).toContain('http_requests_total');
  });
});

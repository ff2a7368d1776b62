import { z } from 'zod';
import { call, type Developer, type TestApp, withAppAndDeveloper } from './support/test-app';

describe('HTTP core: envelopes, error bodies, request ids, docs', () => {
  let app: TestApp;
  let dev: Developer;
  withAppAndDeveloper((a, d) => {
    app = a;
    dev = d;
  });
  beforeAll(() => {
    app.roots.platform.route({
      method: 'get',
      path: '/__explode',
      summary: 'test only',
      success: { description: 'never answers', schema: z.never() },
      handler: () => {
        throw new Error('database password is hunter2 at /srv/app/secret.ts:42');
      },
    });
  });

  it('400 for malformed JSON', async () => {
    const res = await call(app.baseUrl, 'PUT', '/api/v2/developers/secrets/A', {
      token: dev.liveKey,
      rawBody: '{"value":',
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      success: false,
      code: 'VALIDATION_FAILED',
      error: 'Malformed JSON in request body',
    });
  });

  it('413 PAYLOAD_TOO_LARGE over 1 MiB', async () => {
    const res = await call(app.baseUrl, 'PUT', '/api/v2/developers/secrets/A', {
      token: dev.liveKey,
      body: { value: 'x'.repeat(1024 * 1024 + 10) },
    });
    expect(res.status).toBe(413);
    expect(res.body).toEqual({
      success: false,
      error: 'Request body exceeds the 1 MiB limit',
      code: 'PAYLOAD_TOO_LARGE',
    });
  });

  it('404 JSON for an unknown route, on every root and outside them', async () => {
    for (const path of [
      '/nope',
      '/api/v2/developers/nope',
      '/api/v1/developers/nope',
      '/api/marketplace/nope',
    ]) {
      const res = await call(app.baseUrl, 'GET', path, { token: dev.liveKey });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({
        success: false,
        error: expect.stringContaining('No route'),
        code: 'NOT_FOUND',
      });
    }
  });

  it('500 INTERNAL never leaks the message or a stack trace', async () => {
    const res = await call(app.baseUrl, 'GET', '/api/v2/developers/__explode', { token: dev.liveKey });
    expect(res.status).toBe(500);
    expect(res.body).toEqual({
      success: false,
      error: expect.stringMatching(/^Internal error/),
      code: 'INTERNAL',
    });
    expect(JSON.stringify(res.body)).not.toMatch(/hunter2|secret\.ts|at /);
    expect(res.body.error).toContain(res.headers.get('x-request-id'));
  });

  it('a request id on every response; a well-formed incoming one is kept', async () => {
    const generated = await call(app.baseUrl, 'GET', '/nope');
    expect(generated.headers.get('x-request-id')).toMatch(/^req_/);
    const kept = await call(app.baseUrl, 'GET', '/healthz', { headers: { 'x-request-id': 'lb-1234' } });
    expect(kept.headers.get('x-request-id')).toBe('lb-1234');
    const replaced = await call(app.baseUrl, 'GET', '/healthz', {
      headers: { 'x-request-id': 'bad id <script>' },
    });
    expect(replaced.headers.get('x-request-id')).toMatch(/^req_/);
  });

  it('/healthz and /readyz', async () => {
    expect((await call(app.baseUrl, 'GET', '/healthz')).body.status).toBe('ok');
    const ready = await call(app.baseUrl, 'GET', '/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({ status: 'ready', checks: { database: 'ok', temporal: 'ok' } });
  });

  it('/openapi.json is OpenAPI 3.1 generated from the route schemas', async () => {
    const res = await call(app.baseUrl, 'GET', '/openapi.json');
    expect(res.body.openapi).toBe('3.1.0');
    const put = res.body.paths['/api/v2/developers/secrets/{name}'].put;
    expect(put.security).toEqual([{ apiKey: [] }]);
    expect(put.description).toContain('Scope: `secrets:write`');
    const schema = put.requestBody.content['application/json'].schema;
    const body = schema.$ref ? res.body.components.schemas[schema.$ref.split('/').pop()] : schema;
    expect(body.required).toEqual(['value']);
    expect(body.additionalProperties).toBe(false);
    const list = res.body.paths['/api/v2/developers/secrets'].get;
    expect(list.parameters.map((p: { name: string }) => p.name)).toEqual(['limit', 'offset']);
    expect(res.body.paths['/api/v1/developers/keys'].post).toBeDefined();
    expect(res.body.paths['/api/admin/accounts/{publisherId}/plan'].put).toBeDefined();
    expect(res.body.components.schemas.Error).toBeDefined();
  });

  it('/openapi.json tags operations by area, so /docs groups them', async () => {
    const res = await call(app.baseUrl, 'GET', '/openapi.json');
    const tagOf = (path: string, method: string) => res.body.paths[path][method].tags;
    expect(tagOf('/api/v2/developers/webhooks/{id}/logs', 'get')).toEqual(['Webhooks']);
    expect(tagOf('/api/v2/developers/secrets/{name}', 'put')).toEqual(['Secrets']);
    expect(tagOf('/api/v2/developers/mcp-servers', 'post')).toEqual(['MCP servers']);
    expect(tagOf('/api/v1/developers/keys', 'post')).toEqual(['API keys']);
    expect(tagOf('/api/admin/accounts/{publisherId}/plan', 'put')).toEqual(['Operators']);
    const names = res.body.tags.map((t: { name: string }) => t.name);
    expect(names).toEqual(expect.arrayContaining(['Webhooks', 'Workflows', 'Tools', 'OAuth', 'Operators']));
    expect(new Set(names).size).toBe(names.length);
    const webhooks = res.body.tags.find((t: { name: string }) => t.name === 'Webhooks');
    expect(webhooks.description).toContain('/api/v2/developers');
  });

  it('/docs is served from local files, no CDN', async () => {
    const page = await fetch(`${app.baseUrl}/docs`);
    const html = await page.text();
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(html).not.toMatch(/src="https?:|href="https?:\/\/(?!127)/);
    const script = await fetch(`${app.baseUrl}/docs/assets/swagger-ui-bundle.js`);
    expect(script.status).toBe(200);
    expect((await script.text()).length).toBeGreaterThan(100_000);
  });
});

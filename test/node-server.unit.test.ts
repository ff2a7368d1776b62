import type http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { createHttpServer } from '../src/http/node-server';

/** Serves `app` on createHttpServer and records, for each request, the prototypes it arrived with. */
async function serve(app: express.Express) {
  const server = createHttpServer(app);
  const seen: { req: object | null; res: object | null }[] = [];
  server.prependListener('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
    seen.push({ req: Object.getPrototypeOf(req), res: Object.getPrototypeOf(res) });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { server, seen, base, close: () => new Promise<void>((r) => server.close(() => r())) };
}

describe('createHttpServer', () => {
  it("builds each request and response with the Express app's prototypes, so Express never swaps them", async () => {
    const app = express();
    app.get('/things/:id', (req, res) => {
      res
        .status(201)
        .set('X-Thing', req.params.id)
        .json({ id: req.params.id, query: req.query.q, ip: req.ip });
    });
    app.post('/echo', express.json(), (req, res) => {
      res.json(req.body);
    });
    const { seen, base, close } = await serve(app);
    try {
      const got = await fetch(`${base}/things/abc?q=1`);
      expect(got.status).toBe(201);
      expect(got.headers.get('x-thing')).toBe('abc');
      expect(await got.json()).toEqual({ id: 'abc', query: '1', ip: '127.0.0.1' });
      const head = await fetch(`${base}/things/abc`, { method: 'HEAD' });
      expect(head.status).toBe(201);
      expect(await head.text()).toBe('');
      const echoed = await fetch(`${base}/echo`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ a: [1, 2] }),
      });
      expect(await echoed.json()).toEqual({ a: [1, 2] });
      expect(seen).toHaveLength(3);
      for (const s of seen) {
        expect(s.req).toBe(app.request);
        expect(s.res).toBe(app.response);
      }
    } finally {
      await close();
    }
  });

  it("serves a plain listener with Node's own classes", async () => {
    const server = createHttpServer((_req, res) => res.end('plain'));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const got = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
      expect(await got.text()).toBe('plain');
    } finally {
      await new Promise<void>((r) => server.close(() => r()));
    }
  });
});

import http from 'node:http';
import { custom, Issuer } from 'openid-client';
import { cappedChunks, OutboundError } from '../src/outbound/answer-limits';
import { guardedFetch } from '../src/outbound/fetch';
import { limitedRequestOptions } from '../src/outbound/limited-agent';
import { postJson } from '../src/outbound/provider';

const open = { allowPrivate: true, allowHttp: true };
const limits = (maxBytes: number, timeoutMs = 5_000) => ({ maxBytes, timeoutMs });

/** A body from chunks, destroyable as a socket's is. */
function bodyOf(chunks: string[]) {
  const body = {
    destroyed: false,
    destroy() {
      body.destroyed = true;
    },
    async *[Symbol.asyncIterator]() {
      for (const chunk of chunks) yield Buffer.from(chunk);
    },
  };
  return body;
}

async function drain(chunks: AsyncIterable<Uint8Array>): Promise<number> {
  let bytes = 0;
  for await (const chunk of chunks) bytes += chunk.length;
  return bytes;
}

describe('answer limits (src/outbound/answer-limits.ts), for every outbound reader', () => {
  let server: http.Server;
  let base: string;
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      if (req.url === '/big') return res.end(JSON.stringify({ access_token: 'x'.repeat(200_000) }));
      if (req.url === '/stall') {
        res.writeHead(200, { 'content-type': 'application/json' });
        return void res.write('{"access_token":"'); // and never the rest
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ access_token: 'token', token_type: 'bearer' }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  afterAll(() => {
    server.closeAllConnections();
    return new Promise((resolve) => server.close(resolve));
  });

  it('a whole answer past the cap throws too_large and destroys the body', async () => {
    const body = bodyOf(['12345', '67890', 'x']);
    const error = await drain(cappedChunks(body, 10)).catch((e) => e);
    expect(error).toBeInstanceOf(OutboundError);
    expect(error.kind).toBe('too_large');
    expect(body.destroyed).toBe(true);
    expect(await drain(cappedChunks(bodyOf(['12345', '67890']), 10))).toBe(10);
  });

  it('an event stream is capped per event: many small events pass, one big event does not', async () => {
    const small = Array.from({ length: 100 }, (_, i) => `data: ${i}\n\n`);
    expect(await drain(cappedChunks(bodyOf(small), 16, { perEvent: true }))).toBeGreaterThan(16);
    // two events of 17 bytes (CRLF lines), the boundary between them split across chunks: it still
    // ends the first (counted whole, 31 bytes would pass the cap of 20)
    const split = ['data: 1234567\r', '\n\r', '\ndata: 1234567\n', '\n'];
    expect(await drain(cappedChunks(bodyOf(split), 20, { perEvent: true }))).toBe(32);
    const big = ['data: 12345', '67890', '12345\n\n'];
    let heard: OutboundError | undefined;
    const error = await drain(
      cappedChunks(bodyOf(big), 16, { perEvent: true, onTooLarge: (e) => (heard = e) }),
    ).catch((e) => e);
    expect(error.kind).toBe('too_large');
    expect(heard).toBe(error);
  });

  it('the guarded fetch: a body past the cap, or past the deadline, errors as classified', async () => {
    const tooLarge = await (await guardedFetch(open, limits(1000))(`${base}/big`)).text().catch((e) => e);
    expect([tooLarge.name, tooLarge.kind]).toEqual(['OutboundError', 'too_large']);
    const late = await (await guardedFetch(open, limits(1000, 300))(`${base}/stall`)).text().catch((e) => e);
    expect([late.name, late.kind]).toEqual(['OutboundError', 'timeout']);
  });

  it('the model provider: an answer past the cap throws too_large', async () => {
    const error = await postJson(`${base}/big`, {}, {}, limits(1000)).catch((e) => e);
    expect(error.kind).toBe('too_large');
    expect((await postJson(`${base}/`, {}, {}, limits(1000))).ok).toBe(true);
  });

  it('OAuth token endpoints (openid-client reads the answers itself): past the cap or the deadline, a classified error', async () => {
    const refresh = (path: string, maxBytes: number, timeoutMs = 5_000) => {
      const issuer = new Issuer({ issuer: base, token_endpoint: `${base}${path}` });
      const client = new issuer.Client({ client_id: 'c', client_secret: 's' });
      client[custom.http_options] = (url, options) => ({
        ...options,
        ...limitedRequestOptions(url, open, limits(maxBytes, timeoutMs)),
      });
      return client.refresh('refresh-token');
    };
    expect((await refresh('/', 64 * 1024)).access_token).toBe('token');
    const tooLarge = await refresh('/big', 64 * 1024).catch((e) => e);
    expect([tooLarge.name, tooLarge.kind]).toEqual(['OutboundError', 'too_large']);
    const late = await refresh('/stall', 64 * 1024, 300).catch((e) => e);
    expect([late.name, late.kind]).toEqual(['OutboundError', 'timeout']);
  });
});

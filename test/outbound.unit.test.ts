import dns from 'node:dns';
import http from 'node:http';
import os from 'node:os';
import { guardedFetch } from '../src/outbound/fetch';
import { isBlockedAddress, OutboundError, sendOutbound, urlProblem } from '../src/outbound/http';

/** An answer cap and deadline for the calls below. */
const limits = (maxBytes: number, timeoutMs = 5_000) => ({ maxBytes, timeoutMs });

describe('outbound HTTP guard (SSRF)', () => {
  it('classifies private, loopback, link-local, metadata and reserved addresses as blocked', () => {
    for (const address of [
      '127.0.0.1',
      '10.1.2.3',
      '172.16.0.1',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '224.0.0.1',
      '::1',
      '::',
      'fe80::1',
      'fd00:ec2::254',
      '::ffff:127.0.0.1',
      '::ffff:10.0.0.1',
      'not-an-ip',
    ]) {
      expect([address, isBlockedAddress(address)]).toEqual([address, true]);
    }
    for (const address of ['93.184.216.34', '8.8.8.8', '2606:4700:4700::1111', '::ffff:8.8.8.8']) {
      expect([address, isBlockedAddress(address)]).toEqual([address, false]);
    }
  });

  it('judges every IPv4-embedding IPv6 form by the IPv4 address it embeds', () => {
    for (const address of [
      '::7f00:1', // IPv4-compatible ::/96 (ipaddr.js calls it unicast)
      '::127.0.0.1',
      '::a9fe:a9fe', // 169.254.169.254
      '::ffff:0:7f00:1', // IPv4-translated
      '64:ff9b::7f00:1', // NAT64 well-known prefix
      '64:ff9b::a00:1',
      '64:ff9b:1:7f00:1::', // NAT64 local-use prefix, /48 position
      '64:ff9b:1::7f00:1', // and /96 position
      '2002:7f00:1::1', // 6to4
      '2002:a9fe:a9fe::',
      '2001:0:7f00:1::1', // Teredo server
      '2001:0:4136:e378:8000:63bf:80ff:fffe', // Teredo client 127.0.0.1 (bit-inverted)
    ]) {
      expect([address, isBlockedAddress(address)]).toEqual([address, true]);
    }
    for (const address of ['::8.8.8.8', '64:ff9b::808:808', '2002:808:808::1', '2001:0:808:808::f7f7:f7f7']) {
      expect([address, isBlockedAddress(address)]).toEqual([address, false]);
    }
    const strict = { allowPrivate: false, allowHttp: false };
    for (const url of [
      'https://[::7f00:1]/',
      'https://[64:ff9b::a9fe:a9fe]/',
      'https://[2002:7f00:1::]:8443/',
    ]) {
      expect([url, urlProblem(url, strict)]).toEqual([
        url,
        'must not point to a private or reserved address',
      ]);
    }
  });

  it('checks URLs before any request', () => {
    const strict = { allowPrivate: false, allowHttp: false };
    expect(urlProblem('http://example.com', strict)).toBe('must be an https URL');
    expect(urlProblem('https://user:pw@example.com', strict)).toBe('must not contain credentials');
    expect(urlProblem('https://10.0.0.1/x', strict)).toMatch(/private/);
    expect(urlProblem('https://[::ffff:169.254.169.254]/', strict)).toMatch(/private/);
    expect(urlProblem('https://example.com/hook', strict)).toBeUndefined();
    expect(urlProblem('http://127.0.0.1:8080', { allowPrivate: true, allowHttp: true })).toBeUndefined();
  });

  describe('against a real local server', () => {
    let server: http.Server;
    let port: number;
    let hits = 0;
    /** The /stream response's end: bytes the server wrote and whether it got to finish. */
    let streamed: Promise<{ written: number; finished: boolean }> = Promise.resolve({
      written: 0,
      finished: false,
    });
    beforeAll(async () => {
      server = http.createServer((req, res) => {
        hits++;
        if (req.url === '/stream') {
          // 50 MB, written as fast as the client reads it
          const total = 50 * 1024 * 1024;
          const chunk = Buffer.alloc(64 * 1024, 'x');
          let written = 0;
          streamed = new Promise((resolve) =>
            res.on('close', () => resolve({ written, finished: res.writableFinished })),
          );
          res.writeHead(200, { 'content-type': 'application/octet-stream' });
          const pump = () => {
            while (written < total && !res.destroyed) {
              written += chunk.length;
              if (!res.write(chunk)) return void res.once('drain', pump);
            }
            res.end();
          };
          return pump();
        }
        if (req.url === '/redirect') {
          res.writeHead(302, { location: '/elsewhere' });
          return res.end();
        }
        if (req.url === '/slow') return setTimeout(() => res.end('late'), 2_000).unref();
        if (req.url === '/big') return res.end('x'.repeat(100_000));
        res.end('ok');
      });
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      port = (server.address() as { port: number }).port;
    });
    afterAll(() => {
      server.closeAllConnections();
      return new Promise((r) => server.close(r));
    });

    const send = (url: string, allowPrivate: boolean, timeoutMs = 5_000) =>
      sendOutbound({
        url,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
        limits: limits(200_000, timeoutMs),
        policy: { allowPrivate, allowHttp: true },
      });

    it('refuses loopback by literal address and by a name that resolves to it, without connecting', async () => {
      const before = hits;
      for (const url of [
        `http://127.0.0.1:${port}/`,
        `http://localhost:${port}/`,
        'http://169.254.169.254/latest',
      ]) {
        const error = await send(url, false).catch((e) => e);
        expect(error).toBeInstanceOf(OutboundError);
        expect(error.kind).toBe('blocked');
      }
      // a name the URL check cannot judge, which resolves to loopback (the machine's own host
      // name, in /etc/hosts): refused at lookup, on the resolved address
      const name = os.hostname();
      const { address } = await dns.promises.lookup(name);
      expect(isBlockedAddress(address)).toBe(true);
      const resolved = await sendOutbound({
        url: `http://${name}:${port}/`,
        method: 'GET',
        headers: {},
        limits: limits(10),
        policy: { allowPrivate: false, allowHttp: true },
      }).catch((e) => e);
      expect(resolved).toBeInstanceOf(OutboundError);
      expect(resolved.kind).toBe('blocked');
      expect(hits).toBe(before);
    });

    it('the fetch used by the MCP client applies the same guard', async () => {
      const before = hits;
      const strict = guardedFetch({ allowPrivate: false, allowHttp: true }, limits(200_000));
      for (const url of [`http://127.0.0.1:${port}/`, `http://${os.hostname()}:${port}/`]) {
        const error = await strict(url, { method: 'POST', body: '{}' }).catch((e) => e);
        expect(error).toBeInstanceOf(OutboundError);
        expect(error.kind).toBe('blocked');
      }
      expect(hits).toBe(before);
      const allowed = await guardedFetch(
        { allowPrivate: true, allowHttp: true },
        limits(200_000),
      )(`http://127.0.0.1:${port}/redirect`);
      expect(allowed.status).toBe(302); // redirects are returned, not followed
    });

    it('the guarded fetch answers as fetch does: status, headers and body; refusals and aborts as fetch rejects', async () => {
      const fetchLike = guardedFetch({ allowPrivate: true, allowHttp: true }, limits(200_000));
      const big = await fetchLike(`http://127.0.0.1:${port}/big`, {
        method: 'POST',
        headers: new Headers({ 'content-type': 'application/json' }),
        body: '{}',
      });
      expect([big.ok, big.status, big.headers.get('content-length')]).toEqual([true, 200, '100000']);
      expect(await big.text()).toHaveLength(100_000);
      const plain = await fetchLike(`http://127.0.0.1:${port}/`);
      expect(await plain.text()).toBe('ok');
      // a refused connection: TypeError('fetch failed') with the socket's error as its cause
      const refused = await fetchLike('http://127.0.0.1:1/').catch((e) => e);
      expect(refused).toBeInstanceOf(TypeError);
      expect(refused.message).toBe('fetch failed');
      expect(refused.cause.code).toBe('ECONNREFUSED');
      // an abort rejects with the signal's reason
      const signal = AbortSignal.timeout(100);
      const aborted = await fetchLike(`http://127.0.0.1:${port}/slow`, { signal }).catch((e) => e);
      expect(aborted).toBe(signal.reason);
      expect(aborted.name).toBe('TimeoutError');
    });

    it('when allowed: does not follow redirects, reads a whole answer within the cap, and times out', async () => {
      const redirect = await send(`http://127.0.0.1:${port}/redirect`, true);
      expect(redirect.status).toBe(302);
      const big = await send(`http://127.0.0.1:${port}/big`, true);
      expect(big.body).toHaveLength(100_000);
      const slow = await send(`http://127.0.0.1:${port}/slow`, true, 300).catch((e) => e);
      expect(slow).toBeInstanceOf(OutboundError);
      expect(slow.kind).toBe('timeout');
      expect(slow.requestSent).toBe(true); // the server had it: it may have acted
      const refused = await send('http://127.0.0.1:1/', true).catch((e) => e);
      expect(refused.kind).toBe('connection');
      expect(refused.requestSent).toBe(false); // never left: asking again is safe
      const blocked = await send(`http://127.0.0.1:${port}/`, false).catch((e) => e);
      expect([blocked.kind, blocked.requestSent]).toEqual(['blocked', false]);
    });

    it('fails an answer past the cap (too_large) and closes the connection instead of reading the rest', async () => {
      const started = performance.now();
      const capped = await send(`http://127.0.0.1:${port}/stream`, true, 30_000).catch((e) => e);
      expect(capped).toBeInstanceOf(OutboundError);
      expect(capped.kind).toBe('too_large');
      const end = await streamed;
      expect(end.finished).toBe(false); // the socket was closed under the server
      expect(end.written).toBeLessThan(16 * 1024 * 1024); // at most what socket buffers absorbed
      expect(performance.now() - started).toBeLessThan(5_000);
      // the pooled agent still works afterwards
      expect((await send(`http://127.0.0.1:${port}/`, true)).body).toBe('ok');
    });
  });
});

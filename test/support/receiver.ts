import http from 'node:http';

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  rawBody: string;
  receivedAt: number;
}

export interface Receiver {
  url: string;
  requests: ReceivedRequest[];
  /** Status codes answered in order; after the list runs out, `fallback`. */
  respond(statuses: number[], fallback?: number): void;
  /** Resolves once `count` requests arrived (rejects after `timeoutMs`). */
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedRequest[]>;
  close(): Promise<void>;
}

/** A real webhook receiver on a free loopback port that records every request it gets. */
export async function startReceiver(opts: { delayMs?: number } = {}): Promise<Receiver> {
  const requests: ReceivedRequest[] = [];
  let queue: number[] = [];
  let fallback = 200;
  const waiters: { count: number; resolve: () => void }[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      requests.push({
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        rawBody: Buffer.concat(chunks).toString('utf8'),
        receivedAt: Date.now(),
      });
      const status = queue.length > 0 ? queue.shift()! : fallback;
      const answer = () => {
        res.writeHead(status, { 'content-type': 'text/plain' });
        res.end(status < 300 ? 'ok' : `failure ${status}`);
      };
      if (opts.delayMs) setTimeout(answer, opts.delayMs);
      else answer();
      for (const w of [...waiters]) {
        if (requests.length >= w.count) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve();
        }
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    requests,
    respond(statuses, fb = 200) {
      queue = [...statuses];
      fallback = fb;
    },
    waitFor(count, timeoutMs = 20_000) {
      if (requests.length >= count) return Promise.resolve(requests);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`receiver got ${requests.length} of ${count} requests in ${timeoutMs} ms`)),
          timeoutMs,
        );
        waiters.push({
          count,
          resolve: () => {
            clearTimeout(timer);
            resolve(requests);
          },
        });
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Polls `fn` until it returns a truthy value (or throws after `timeoutMs`). */
export async function eventually<T>(
  fn: () => Promise<T | undefined | false>,
  timeoutMs = 20_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await fn();
      if (value) return value;
    } catch (error) {
      last = error;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`condition not met within ${timeoutMs} ms${last ? `: ${String(last)}` : ''}`);
}

import http from 'node:http';
import type { Logger } from '../logging/logger';
import { scrape } from './metrics';

/**
 * Prometheus's scrape target on a port of its own (METRICS_PORT, bound to METRICS_HOST, by default
 * 127.0.0.1): `GET /metrics` and nothing else, without credentials, so it must stay on a network only
 * the scraper reaches. Every process (API, worker) serves its own.
 */
export async function serveMetrics(opts: { host: string; port: number; logger: Logger }): Promise<{
  port: number;
  close(): Promise<void>;
}> {
  const server = http.createServer((req, res) => {
    if (req.method !== 'GET' || req.url?.split('?')[0] !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
      return;
    }
    scrape().then(
      ({ contentType, body }) => res.writeHead(200, { 'content-type': contentType }).end(body),
      (error: Error) => {
        opts.logger.warn({ err: error }, 'metrics scrape failed');
        res.writeHead(500, { 'content-type': 'text/plain' }).end('scrape failed\n');
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, resolve);
  });
  const port = (server.address() as { port: number }).port;
  opts.logger.info({ host: opts.host, port }, 'metrics: serving Prometheus metrics at /metrics');
  return {
    port,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

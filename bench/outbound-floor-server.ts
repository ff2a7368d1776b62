/**
 * bench:outbound's floor (a child process): the least any Node.js server must do for one hostile
 * answer, without the platform. `GET /healthz` answers at once; `POST /read` sends one MCP
 * tools/call to `?url=` with undici, counts the answer's bytes until past 1 MiB (the platform's MCP
 * cap), destroys the connection and answers how much it read. Measured the same way as the platform,
 * its `/healthz` p99 during the reads is what the machine itself allows.
 */
import http from 'node:http';
import { request } from 'undici';

const CAP_BYTES = 1024 * 1024;
const CALL = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: { name: 'dump', arguments: {} },
});

/** Reads the hostile answer at `url` until it passes the cap, then hangs up; the bytes read. */
async function readCapped(url: string): Promise<number> {
  const answer = await request(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: CALL,
  });
  let read = 0;
  for await (const chunk of answer.body) {
    read += (chunk as Buffer).length;
    if (read > CAP_BYTES) {
      answer.body.destroy();
      break;
    }
  }
  return read;
}

const server = http.createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://floor');
  if (req.method === 'GET' && url.pathname === '/healthz') {
    res.writeHead(200, { 'content-type': 'application/json' });
    return void res.end('{"status":"ok"}');
  }
  if (req.method === 'POST' && url.pathname === '/read') {
    req.resume();
    readCapped(url.searchParams.get('url') ?? '').then(
      (read) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ read }));
      },
      (error: Error) => {
        res.writeHead(502, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: error.message }));
      },
    );
    return;
  }
  res.writeHead(404).end();
});

server.listen(0, '127.0.0.1', () => {
  process.send?.({ port: (server.address() as { port: number }).port });
});
process.on('SIGTERM', () => process.exit(0));

/**
 * The abusive callers of bench:voice's "under abuse" row, in a process of their own (so their work
 * does not slow the bench's own client): one stream that floods 2-byte audio frames as fast as its
 * socket takes them, and one that never reads while asking for a reply every second. Each opens a
 * fresh session and stream again as soon as the platform drops it. Runs until SIGTERM; then prints
 * how many times each was dropped.
 */
import WebSocket from 'ws';

const base = process.env.BENCH_ABUSE_BASE!;
const key = process.env.BENCH_ABUSE_KEY!;
const personaId = process.env.BENCH_ABUSE_PERSONA!;
let running = true;
const dropped = { flooder: 0, nonReader: 0 };
/** Reconnects the platform refused (a 429 on the session or the upgrade: the account's cool-down). */
let refused = 0;

async function openStream(userId: string): Promise<WebSocket> {
  const res = await fetch(`${base}/api/v2/developers/sessions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ personaId, userId }),
  });
  const id = ((await res.json()) as { data: { id: string } }).data.id;
  const ws = new WebSocket(`${base.replace(/^http/, 'ws')}/api/v2/developers/sessions/${id}/stream`, {
    headers: { authorization: `Bearer ${key}` },
  });
  ws.on('error', () => undefined);
  await new Promise<void>((resolve, reject) => {
    ws.on('message', (data, isBinary) => {
      if (!isBinary && String(data).includes('"session.ready"')) resolve();
    });
    ws.once('close', () => reject(new Error('closed before it was ready')));
  });
  return ws;
}

const closed = (ws: WebSocket) => new Promise<void>((r) => ws.once('close', () => r()));

async function flooder(): Promise<void> {
  const frame = Buffer.alloc(2);
  while (running) {
    const ws = await openStream('bench-flooder').catch(() => undefined);
    if (!ws) {
      refused++;
      continue;
    }
    const done = closed(ws);
    while (running && ws.readyState === WebSocket.OPEN) {
      for (let i = 0; i < 500; i++) ws.send(frame, { binary: true });
      await new Promise((r) => setImmediate(r));
    }
    if (running) dropped.flooder++;
    ws.terminate();
    await done;
  }
}

async function nonReader(): Promise<void> {
  while (running) {
    const ws = await openStream('bench-non-reader').catch(() => undefined);
    if (!ws) {
      refused++;
      continue;
    }
    (ws as unknown as { _socket: { pause(): void } })._socket.pause();
    const ask = setInterval(
      () => ws.send(JSON.stringify({ type: 'input.text', text: 'Tell me everything.' })),
      1000,
    );
    await closed(ws);
    clearInterval(ask);
    if (running) dropped.nonReader++;
  }
}

process.on('SIGTERM', () => {
  running = false;
  process.stderr.write(
    `bench:voice: abusive clients dropped ${dropped.flooder} (flooding) and ${dropped.nonReader} (not reading) times; ${refused} reconnects refused\n`,
  );
  process.exit(0);
});
// BENCH_ABUSE_ONLY=flooder|nonReader runs one of them (to see what each costs)
const only = process.env.BENCH_ABUSE_ONLY;
if (only !== 'nonReader') void flooder();
if (only !== 'flooder') void nonReader();
process.send?.('started');

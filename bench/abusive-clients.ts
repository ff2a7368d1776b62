/**
 * The abusive callers of bench:voice's "under abuse" row, in a process of their own (so their work
 * does not slow the bench's own client): one stream that floods 2-byte audio frames as fast as its
 * socket takes them, and one that never reads while asking for a reply every second. Each opens a
 * fresh session and stream again as soon as the platform drops it. Runs until SIGTERM; then prints
 * how many times each was dropped.
 *
 * BENCH_ABUSE_POLITE=1 runs their well-behaved twins instead, the same talk from clients that keep the
 * rules: one stream sending 20 ms frames of silence at real time, one asking for a reply every second
 * and reading all of it. That is what the same traffic costs when nobody abuses the platform: the
 * floor of the "under abuse" row.
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

async function politeStreamer(): Promise<void> {
  const ws = await openStream('bench-polite-streamer');
  const frame = Buffer.alloc(640); // 20 ms of 16 kHz PCM16 silence
  const timer = setInterval(() => ws.send(frame, { binary: true }), 20);
  await closed(ws);
  clearInterval(timer);
}

async function politeTalker(): Promise<void> {
  const ws = await openStream('bench-polite-talker');
  const ask = setInterval(
    () => ws.send(JSON.stringify({ type: 'input.text', text: 'Tell me everything.' })),
    1000,
  );
  await closed(ws);
  clearInterval(ask);
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
if (process.env.BENCH_ABUSE_POLITE === '1') {
  void Promise.all([politeStreamer(), politeTalker()]).then(() => {
    process.stderr.write('bench:voice: a polite client was dropped: the floor is void\n');
  });
} else {
  if (only !== 'nonReader') void flooder();
  if (only !== 'flooder') void nonReader();
}
process.send?.('started');

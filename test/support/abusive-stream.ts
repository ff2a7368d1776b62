import WebSocket from 'ws';
import { streamUrl } from './voice-stream';

/** A raw stream client for abuse tests: every JSON message it got, and how the stream closed. */
export interface AbusiveStream {
  ws: WebSocket;
  messages: { type: string; code?: string; [k: string]: unknown }[];
  audioBytes: number;
  closed?: { code: number; reason: string };
  /** Resolves once the stream has closed (or after `ms`, with `closed` unset). */
  untilClosed(ms: number): Promise<void>;
  /** Stops reading the socket: what the server sends piles up on its side. */
  stopReading(): void;
  errors(code?: string): number;
}

/** Opens a session's stream with an API key and resolves once `session.ready` arrived. */
export async function openAbusiveStream(
  baseUrl: string,
  sessionId: string,
  key: string,
): Promise<AbusiveStream> {
  const ws = new WebSocket(streamUrl(baseUrl, sessionId), { headers: { authorization: `Bearer ${key}` } });
  const stream: AbusiveStream = {
    ws,
    messages: [],
    audioBytes: 0,
    untilClosed: (ms) =>
      new Promise<void>((resolve) => {
        if (stream.closed) return resolve();
        const timer = setTimeout(resolve, ms);
        ws.once('close', () => {
          clearTimeout(timer);
          resolve();
        });
      }),
    stopReading: () => (ws as unknown as { _socket: { pause(): void } })._socket.pause(),
    errors: (code) => stream.messages.filter((m) => m.type === 'error' && (!code || m.code === code)).length,
  };
  ws.on('message', (data, isBinary) => {
    if (isBinary) stream.audioBytes += (data as Buffer).byteLength;
    else stream.messages.push(JSON.parse(data.toString()));
  });
  ws.on('close', (code, reason) => {
    stream.closed = { code, reason: reason.toString() };
  });
  ws.on('error', () => undefined);
  const deadline = Date.now() + 20_000;
  while (!stream.messages.some((m) => m.type === 'session.ready')) {
    if (stream.closed)
      throw new Error(
        `the stream closed: ${JSON.stringify(stream.closed)} ${JSON.stringify(stream.messages)}`,
      );
    if (Date.now() > deadline) throw new Error('no session.ready');
    await new Promise((r) => setTimeout(r, 20));
  }
  return stream;
}

/** Sends as many tiny frames as the socket takes for `ms`, in batches, yielding between them. */
export async function floodFrames(
  stream: AbusiveStream,
  frame: Buffer | string,
  ms: number,
): Promise<number> {
  const until = Date.now() + ms;
  let sent = 0;
  while (Date.now() < until && stream.ws.readyState === WebSocket.OPEN) {
    for (let i = 0; i < 500; i++) stream.ws.send(frame, { binary: typeof frame !== 'string' });
    sent += 500;
    await new Promise((r) => setImmediate(r));
  }
  return sent;
}

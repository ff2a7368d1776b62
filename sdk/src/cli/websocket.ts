import type * as http from 'node:http';
import WebSocket from 'ws';
import { ConnectionError, errorFromResponse } from '../errors';

/**
 * The WebSocket of `vp listen`, on the `ws` package (the well-kept Node client; the browser-safe
 * library itself keeps the global WebSocket): Node's global WebSocket hides a refused upgrade's
 * answer (a bare 1006), and the CLI must print the platform's error for it (a wrong key, a missing
 * scope) as every command does; `ws` hands the answer over (`unexpected-response`).
 */

export interface CloseInfo {
  /** The code of the server's close frame; 1005 when it had none, 1006 when the connection just ended. */
  code: number;
  reason: string;
}

/** An open connection: send text, receive text messages (held until a handler is set), close with a code. */
export class CliWebSocket {
  readonly closed: Promise<CloseInfo>;
  private handler: ((text: string) => void) | undefined;
  private held: string[] = [];

  constructor(private readonly ws: WebSocket) {
    ws.on('message', (data, isBinary) => {
      if (isBinary) return;
      const text = data.toString();
      if (this.handler) this.handler(text);
      else this.held.push(text);
    });
    this.closed = new Promise((resolve) => {
      ws.on('close', (code, reason) => resolve({ code, reason: reason.toString() }));
    });
    ws.on('error', () => undefined); // a broken connection ends in `close` (1006)
  }

  onMessage(handler: (text: string) => void): void {
    this.handler = handler;
    for (const text of this.held.splice(0)) handler(text);
  }

  send(text: string): void {
    if (this.ws.readyState === WebSocket.OPEN) this.ws.send(text);
  }

  close(code = 1000, reason = ''): void {
    if (this.ws.readyState === WebSocket.OPEN || this.ws.readyState === WebSocket.CONNECTING)
      this.ws.close(code, reason);
  }
}

/** The typed error of a refused upgrade: the API's error body, either shape (flat or `error: {…}`). */
function refusalError(response: http.IncomingMessage, text: string): Error {
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {}
  const record = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  const nested = typeof record.error === 'object' && record.error !== null;
  const error = (nested ? record.error : record) as Record<string, unknown>;
  const flat = nested ? { ...error, error: error.message } : record;
  const headers = new Headers();
  const requestId = response.headers['x-request-id'] ?? error.requestId;
  if (typeof requestId === 'string') headers.set('x-request-id', requestId);
  const retryAfter = Number(response.headers['retry-after']);
  return errorFromResponse(
    response.statusCode ?? 0,
    headers,
    flat,
    Number.isFinite(retryAfter) ? retryAfter : null,
  );
}

/**
 * Opens a WebSocket to a ws(s) URL with extra request headers (the Authorization). Rejects with the
 * API's typed error when the upgrade is refused, with a ConnectionError when nothing answers.
 */
export function connectWebSocket(
  url: string,
  headers: Record<string, string>,
  timeoutMs = 10_000,
): Promise<CliWebSocket> {
  const target = new URL(url);
  const where = `${target.origin}${target.pathname}`;
  const ws = new WebSocket(url, { headers, handshakeTimeout: timeoutMs, perMessageDeflate: false });
  const wrapped = new CliWebSocket(ws); // holds messages that come with the handshake's answer
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve(wrapped));
    ws.once('unexpected-response', (_request, response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => reject(refusalError(response, Buffer.concat(chunks).toString('utf8'))));
      response.on('error', (error) => reject(new ConnectionError(`${where}: ${error.message}`)));
    });
    ws.once('error', (error) =>
      reject(new ConnectionError(`Could not connect to ${where}: ${error.message}`)),
    );
  });
}

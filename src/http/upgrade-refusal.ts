import http from 'node:http';
import type { Duplex } from 'node:stream';
import type { ApiError } from './errors';

/**
 * Refuses a WebSocket upgrade with a plain HTTP answer carrying the error body (the connection is
 * not yet a WebSocket, so there is nothing else to answer with), then closes the connection.
 */
export function refuseUpgrade(socket: Duplex, error: ApiError, retryAfterSeconds?: number): void {
  const body = JSON.stringify(error.toBody());
  const reason = http.STATUS_CODES[error.status] ?? 'Error';
  const retry = retryAfterSeconds === undefined ? '' : `Retry-After: ${retryAfterSeconds}\r\n`;
  socket.end(
    `HTTP/1.1 ${error.status} ${reason}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n${retry}Connection: close\r\n\r\n${body}`,
  );
}

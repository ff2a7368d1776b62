import http from 'node:http';
import { ApiError } from './errors';

/** What an Express app carries besides being a request listener: the prototypes of its req and res. */
interface ExpressPrototypes {
  request?: object;
  response?: object;
}

/**
 * An HTTP server for `app` whose request and response objects are born with the prototypes Express
 * gives them.
 *
 * Express (5.x `app.handle`) calls `Object.setPrototypeOf(req, app.request)` and the same on `res` for
 * every request. Changing a live object's prototype is slow in V8, and worse, measured here at 1 000
 * req/s, it leaves about 10 MB/s of each request's objects alive through two scavenges, so they are
 * promoted to the old generation and pile up until a mark-compact: every few seconds a 30–60 ms run
 * of main-thread GC work, which is the p99 of every route. With `IncomingMessage`/`ServerResponse`
 * constructors whose prototypes already are `app.request`/`app.response`, Express's
 * `setPrototypeOf` is a no-op (same prototype), nothing is promoted (0.4 KB per scavenge instead of
 * 3.5 MB) and a request allocates a third less. Anything else (a plain listener) gets Node's classes.
 */
export function createHttpServer(app: http.RequestListener & ExpressPrototypes): http.Server {
  const { request, response } = app;
  if (!request || !response) return http.createServer(app);
  function Request(this: http.IncomingMessage, socket: import('node:net').Socket) {
    (http.IncomingMessage as unknown as (socket: import('node:net').Socket) => void).call(this, socket);
  }
  Request.prototype = request;
  function Response(this: http.ServerResponse, req: http.IncomingMessage, options?: object) {
    // Node constructs it as `new ServerResponse(req, { highWaterMark, rejectNonStandardBodyWrites })`
    (http.ServerResponse as unknown as (req: http.IncomingMessage, options?: object) => void).call(
      this,
      req,
      options,
    );
  }
  Response.prototype = response;
  return http.createServer(
    {
      IncomingMessage: Request as unknown as typeof http.IncomingMessage,
      ServerResponse: Response as unknown as typeof http.ServerResponse,
    },
    app,
  );
}

/**
 * Requests that Node refuses before Express sees them still get the JSON error body: headers over
 * Node's limit (16 KiB) are a 431, other malformed requests a 400; a connection already gone is just
 * closed.
 */
export function answerClientError(
  error: Error & { code?: string },
  socket: import('node:stream').Duplex,
): void {
  if (error.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    socket.end('HTTP/1.1 408 Request Timeout\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
    return;
  }
  const tooLarge = error.code === 'HPE_HEADER_OVERFLOW';
  const status = tooLarge ? 431 : 400;
  const body = JSON.stringify(
    new ApiError(
      status,
      'VALIDATION_FAILED',
      tooLarge ? 'Request headers are too large (16 KiB at most)' : 'Malformed HTTP request',
      [tooLarge ? 'headers: larger than 16 KiB' : 'request: not valid HTTP/1.1'],
    ).toBody(),
  );
  socket.end(
    `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

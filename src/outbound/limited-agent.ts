import http from 'node:http';
import https from 'node:https';
import { type AnswerLimits, answerTooLarge, OutboundError } from './answer-limits';
import { guardedLookup, type OutboundPolicy } from './http';

/**
 * `cappedChunks` for a library that makes its requests with node:http and reads the answers itself
 * (openid-client, for OAuth token endpoints): the same limits, applied on the socket, since the
 * library's reading loop is not ours. Past `limits.maxBytes` received (headers included) or
 * `limits.timeoutMs` after the request, the answer and the request are destroyed with OutboundError
 * 'too_large' or 'timeout', which is what the library's read then throws.
 */
function limitRequest(request: http.ClientRequest, limits: AnswerLimits): void {
  const fail = (error: OutboundError) => {
    // the answer under way, if it began (ClientRequest#res, which Node's types do not declare)
    (request as { res?: http.IncomingMessage }).res?.destroy(error);
    request.destroy(error);
  };
  // the library hears of a failure through its own listeners or its read of the answer; this one
  // keeps a failure after the answer began from being an unhandled 'error' event
  request.on('error', () => undefined);
  const timer = setTimeout(
    () =>
      fail(new OutboundError(`No whole answer within ${limits.timeoutMs} ms`, 'timeout', limits.timeoutMs)),
    limits.timeoutMs,
  );
  request.once('close', () => clearTimeout(timer));
  request.once('socket', (socket) => {
    let received = 0;
    const count = (chunk: Buffer) => {
      received += chunk.length;
      if (received <= limits.maxBytes) return;
      socket.off('data', count);
      fail(answerTooLarge(limits.maxBytes));
    };
    socket.on('data', count);
    request.once('close', () => socket.off('data', count));
  });
}

/**
 * Options for node:http requests a library makes to `url` (openid-client's `http_options`): the
 * guard's lookup, and a one-connection agent (no keep-alive, so a socket serves one request) that
 * applies `limits` to its request.
 */
export function limitedRequestOptions(
  url: URL,
  policy: OutboundPolicy,
  limits: AnswerLimits,
): { agent: http.Agent; lookup?: ReturnType<typeof guardedLookup>; timeout: number } {
  const lookup = guardedLookup(policy);
  return { agent: limitedAgent(url, limits), ...(lookup ? { lookup } : {}), timeout: limits.timeoutMs };
}

/**
 * A one-connection node:http(s) agent for `url` (no keep-alive, so a socket serves one request)
 * that applies `limits` to each request it is handed: for a library that takes an `agent` only
 * (jose's remote key set, for the operator's identity provider, which the SSRF guard does not
 * filter: its address is the operator's configuration, not a tenant's).
 */
export function limitedAgent(url: URL, limits: AnswerLimits): http.Agent {
  const Base = url.protocol === 'https:' ? https.Agent : http.Agent;
  const agent = new Base({ keepAlive: false });
  // Agent#addRequest (Node's, undocumented in its types) is where an agent is handed each request
  const internal = agent as unknown as { addRequest(request: http.ClientRequest, options: unknown): void };
  const addRequest = internal.addRequest.bind(agent);
  internal.addRequest = (request, options) => {
    limitRequest(request, limits);
    addRequest(request, options);
  };
  return agent;
}

import { Agent, type Dispatcher, request } from 'undici';
import { inClientSpan } from '../telemetry/tracing';
import { type AnswerLimits, type CapOptions, cappedChunks, OutboundError } from './answer-limits';
import { guardedLookup, type OutboundPolicy, urlProblem } from './http';

/**
 * A `fetch` for libraries that bring their own HTTP (the MCP client) with the same SSRF guard as
 * `sendOutbound`: the URL is checked first, and every connection's resolved address is checked in
 * the socket's DNS lookup. Redirects are not followed.
 */
const agents = new Map<string, Agent>();

/** The connection pool whose every connection `policy` guards (for undici's `request`). */
export function guardedDispatcher(policy: OutboundPolicy): Agent {
  return agentFor(policy);
}

function agentFor(policy: OutboundPolicy): Agent {
  const key = `${policy.allowPrivate}:${(policy.allowCidrs ?? []).map(([ip, bits]) => `${ip}/${bits}`).join(',')}`;
  let agent = agents.get(key);
  if (!agent) {
    const lookup = guardedLookup(policy);
    agent = new Agent({ keepAliveTimeout: 10_000, connect: lookup ? { lookup } : {} });
    agents.set(key, agent);
  }
  return agent;
}

/** What a Response is built from. */
type ResponseBody = ConstructorParameters<typeof Response>[0];

export type FetchLike = (url: string | URL, init?: RequestInit) => Promise<Response>;

/** Statuses whose response has no body (a Response with one cannot be built). */
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

/** A GET for a server-sent event stream: long-lived, so it has no deadline and its cap is per event. */
function isEventStreamRequest(method: string, headers: Record<string, string> | undefined): boolean {
  return method === 'GET' && /text\/event-stream/i.test(headers?.accept ?? '');
}

/**
 * The guarded `fetch`, within `limits` (answer-limits.ts): every answer is read through
 * `cappedChunks`, so one past `limits.maxBytes` errors its body with OutboundError 'too_large' and
 * closes the connection (`onTooLarge` hears of it first); the exchange, body included, has
 * `limits.timeoutMs` (its body errors with OutboundError 'timeout'). A long-lived event stream (a
 * GET asking for `text/event-stream`) has neither: its cap is on each event.
 *
 * It sends with undici's `request` and wraps the answer in a standard `Response` (whose body streams
 * from the socket), instead of undici's WHATWG `fetch`, whose request and response pipeline cost
 * about twice the CPU per call (bench: a local JSON POST, 0.33-0.51 against 0.74-1.23 ms of CPU): an
 * MCP tool call in a voice turn is one such call. It behaves as `fetch` does with `redirect:
 * 'manual'`: a redirect is answered as it came; a network failure rejects with `TypeError('fetch
 * failed')` whose `cause` is the socket's error; an abort with the signal's reason.
 */
export function guardedFetch(
  policy: OutboundPolicy,
  limits: AnswerLimits,
  options: Pick<CapOptions, 'onTooLarge'> = {},
): FetchLike {
  const fetchOnce = fetchWithLimits(policy, limits, options);
  return (url, init = {}) =>
    inClientSpan((init.method ?? 'GET').toUpperCase(), url.toString(), () => fetchOnce(url, init));
}

function fetchWithLimits(
  policy: OutboundPolicy,
  limits: AnswerLimits,
  options: Pick<CapOptions, 'onTooLarge'>,
): (url: string | URL, init: RequestInit) => Promise<Response> {
  return async (url, init) => {
    const target = url.toString();
    const problem = urlProblem(target, policy);
    if (problem)
      throw new OutboundError(`URL ${problem}`, problem.includes('private') ? 'blocked' : 'invalid_url', 0);
    const method = (init.method ?? 'GET').toUpperCase() as Dispatcher.HttpMethod;
    const headers = init.headers ? Object.fromEntries(new Headers(init.headers)) : undefined;
    const eventStream = isEventStreamRequest(method, headers);
    const deadline = eventStream ? undefined : AbortSignal.timeout(limits.timeoutMs);
    const signals = [init.signal, deadline].filter((s): s is AbortSignal => Boolean(s));
    const timedOut = () =>
      new OutboundError(`No whole answer within ${limits.timeoutMs} ms`, 'timeout', limits.timeoutMs);
    let answer: Dispatcher.ResponseData;
    try {
      answer = await request(target, {
        method,
        headers,
        body: (init.body ?? undefined) as string | Uint8Array | undefined,
        signal: signals.length > 1 ? AbortSignal.any(signals) : signals[0],
        dispatcher: agentFor(policy),
      });
    } catch (error) {
      if (init.signal?.aborted) throw init.signal.reason ?? error;
      if (deadline?.aborted) throw timedOut();
      const blocked = [error as Error, (error as { cause?: Error }).cause].find(
        (e) => e?.name === 'BlockedDestinationError',
      );
      if (blocked) throw new OutboundError(blocked.message, 'blocked', 0);
      throw new TypeError('fetch failed', { cause: error });
    }
    const answerHeaders = new Headers();
    for (const [name, value] of Object.entries(answer.headers)) {
      if (value === undefined) continue;
      for (const v of Array.isArray(value) ? value : [value]) answerHeaders.append(name, v);
    }
    const noBody = NULL_BODY_STATUSES.has(answer.statusCode) || method === 'HEAD';
    if (noBody) answer.body.dump().catch(() => undefined);
    const chunks = cappedChunks(answer.body, limits.maxBytes, { perEvent: eventStream, ...options });
    return new Response(
      noBody ? null : (answerBody(chunks, answer.body, deadline, timedOut) as unknown as ResponseBody),
      {
        status: answer.statusCode,
        headers: answerHeaders,
      },
    );
  };
}

/**
 * The Response's body: `chunks`, whose failure once `deadline` has passed is reported as the timeout
 * it is; a body cancelled by its reader closes its connection.
 */
async function* answerBody(
  chunks: AsyncGenerator<Uint8Array>,
  socketBody: { destroy(): unknown },
  deadline: AbortSignal | undefined,
  timedOut: () => OutboundError,
): AsyncGenerator<Uint8Array> {
  let ended = false;
  try {
    yield* chunks;
    ended = true;
  } catch (error) {
    throw deadline?.aborted && !(error instanceof OutboundError) ? timedOut() : error;
  } finally {
    if (!ended) socketBody.destroy();
  }
}

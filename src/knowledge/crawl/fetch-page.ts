import { OutboundError } from '../../outbound/http';
import { type CrawlOptions, MAX_REDIRECTS, type SkipReason } from './types';
import { normalizeUrl } from './urls';

/**
 * One address fetched for a crawl: through the caller's guarded fetch, redirects followed by hand
 * (each hop its own guarded request, so the guard judges every address), the body read up to a cap.
 */

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

export interface Refusal {
  reason: SkipReason;
  detail?: string;
}

export type FetchOutcome = { ok: true; url: string; response: Response } | ({ ok: false } & Refusal);

export type FetchSettings = Pick<CrawlOptions, 'fetch' | 'userAgent' | 'signal'>;

/**
 * GET `url`, following at most MAX_REDIRECTS redirects; before each hop, `permitHop` may refuse its
 * (normalised) target. Answers the final response (any status but a redirect), or why there is none.
 */
export async function fetchFollowingRedirects(
  url: string,
  settings: FetchSettings,
  permitHop: (target: string) => Refusal | undefined,
): Promise<FetchOutcome> {
  let current = url;
  for (let hops = 0; ; hops++) {
    let response: Response;
    try {
      response = await settings.fetch(current, {
        method: 'GET',
        redirect: 'manual',
        headers: { 'user-agent': settings.userAgent, accept: '*/*' },
        signal: settings.signal,
      });
    } catch (error) {
      return { ok: false, ...refusalOf(error, settings.signal) };
    }
    if (!REDIRECT_STATUSES.has(response.status)) return { ok: true, url: current, response };
    const location = response.headers.get('location');
    await discardBody(response);
    if (!location)
      return { ok: false, reason: `http-${response.status}`, detail: 'a redirect without Location' };
    const target = normalizeUrl(location, current);
    if (hops === MAX_REDIRECTS)
      return { ok: false, reason: 'too-many-redirects', detail: target ?? location };
    if (!target) return { ok: false, reason: 'redirect-off-site', detail: location };
    const refusal = permitHop(target);
    if (refusal) return { ok: false, ...refusal };
    current = target;
  }
}

/**
 * Why a request or a body read failed: the guard's refusal is `blocked` (an address it refuses, or a
 * URL it does not accept, such as `http:` where only `https:` is allowed); the fetch's own cap is
 * `too-large`; anything else (connection, timeout) `unreachable`. An abort is rethrown: it ends the crawl.
 */
export function refusalOf(error: unknown, signal: AbortSignal | undefined): Refusal {
  if (signal?.aborted) throw signal.reason;
  const detail = error instanceof Error ? error.message : String(error);
  const cause = (error as { cause?: unknown } | undefined)?.cause;
  const blockedDestination = [error, cause].some(
    (e) => (e as Error | undefined)?.name === 'BlockedDestinationError',
  );
  if (blockedDestination) return { reason: 'blocked', detail };
  if (error instanceof OutboundError) {
    if (error.kind === 'blocked' || error.kind === 'invalid_url') return { reason: 'blocked', detail };
    if (error.kind === 'too_large') return { reason: 'too-large', detail };
  }
  const causeMessage = cause instanceof Error ? `: ${cause.message}` : '';
  return { reason: 'unreachable', detail: `${detail}${causeMessage}` };
}

/** Lets a response go without reading it (the connection is closed if it was not read). */
export async function discardBody(response: Response): Promise<void> {
  await response.body?.cancel().catch(() => undefined);
}

/**
 * The body, or `undefined` past `maxBytes` (a larger Content-Length is refused before any read; a
 * longer body is cancelled as it passes the cap). With `truncate`, the first `maxBytes` are answered instead.
 */
export async function readBodyCapped(
  response: Response,
  maxBytes: number,
  options: { truncate?: boolean } = {},
): Promise<Uint8Array | undefined> {
  const declared = Number(response.headers.get('content-length') ?? Number.NaN);
  if (!options.truncate && declared > maxBytes) {
    await discardBody(response);
    return undefined;
  }
  const parts: Uint8Array[] = [];
  let total = 0;
  const reader = response.body?.getReader();
  while (reader) {
    const chunk = await reader.read().catch((error) => {
      // the fetch's own cap: with `truncate`, what came before it is kept
      if (options.truncate && error instanceof OutboundError && error.kind === 'too_large') return undefined;
      throw error;
    });
    if (!chunk || chunk.done) break;
    const { value } = chunk;
    parts.push(value);
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => undefined);
      if (!options.truncate) return undefined;
      break;
    }
  }
  return concat(parts, Math.min(total, maxBytes));
}

function concat(parts: readonly Uint8Array[], length: number): Uint8Array {
  const bytes = new Uint8Array(length);
  let offset = 0;
  for (const part of parts) {
    const take = Math.min(part.byteLength, length - offset);
    bytes.set(part.subarray(0, take), offset);
    offset += take;
    if (offset === length) break;
  }
  return bytes;
}

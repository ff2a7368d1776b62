import { ANSWER_LIMITS, OutboundError } from '../outbound/answer-limits';
import { guardedFetch } from '../outbound/fetch';
import type { OutboundPolicy } from '../outbound/http';

/** Redirects followed (each hop checked by the outbound guard). */
const MAX_REDIRECTS = 5;

/** A fetched page or document. */
export interface FetchedDocument {
  url: string;
  contentType: string | null;
  content: Buffer;
}

/** Why a URL could not be read, in plain words (the source's `failureReason`). */
export class UrlSourceError extends Error {}

function reasonOf(error: unknown, url: string): string {
  if (error instanceof OutboundError) {
    if (error.kind === 'too_large') return `The page at ${url} is over the 20 MB limit.`;
    if (error.kind === 'timeout') return `The page at ${url} took more than 30 seconds to load.`;
    if (error.kind === 'blocked') return `${url} is on a private network, which sources may not reach.`;
    return `${url} cannot be fetched: ${error.message}`;
  }
  return `${url} could not be reached.`;
}

/**
 * GETs one URL through the outbound guard (private addresses refused at every connection, the answer
 * capped at 20 MB and 30 s), following up to five redirects. Throws UrlSourceError with a reason for an
 * answer that is not a 2xx or a URL that cannot be reached.
 */
export async function fetchUrlDocument(policy: OutboundPolicy, start: string): Promise<FetchedDocument> {
  const fetchOnce = guardedFetch(policy, ANSWER_LIMITS.knowledgeSource);
  let url = start;
  for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
    let res: Response;
    let content: Buffer;
    try {
      res = await fetchOnce(url, {
        headers: { accept: 'text/html, application/pdf, text/*;q=0.9, */*;q=0.5' },
      });
      const location = res.headers.get('location');
      if (res.status >= 300 && res.status < 400 && location) {
        await res.body?.cancel();
        url = new URL(location, url).toString();
        continue;
      }
      content = Buffer.from(await res.arrayBuffer());
    } catch (error) {
      throw new UrlSourceError(reasonOf(error, url));
    }
    if (!res.ok) throw new UrlSourceError(`${url} answered HTTP ${res.status}.`);
    return { url, contentType: res.headers.get('content-type'), content };
  }
  throw new UrlSourceError(`${start} redirects more than ${MAX_REDIRECTS} times.`);
}

import type { FetchLike } from '../../outbound/fetch';

/** What a site crawl may do: how deep, how many pages, how big each, as whom, through which fetch. */
export interface CrawlOptions {
  /** How many links away from the start page to go: 0 (the start page only) to 3. */
  maxDepth: number;
  /** The most page addresses requested (redirect hops and robots.txt not counted): 1 to 200. */
  maxPages: number;
  /** A body past this many bytes is not kept: the page is skipped `too-large`. */
  maxBytesPerPage: number;
  /** Sent as `User-Agent`; its product token (before the first `/` or space) picks the robots.txt group. */
  userAgent: string;
  /** The platform's guarded fetch (`guardedFetch`): every request, each redirect hop and robots.txt go through it. */
  fetch: FetchLike;
  /** The absolute links of an HTML page (`extractLinks` of src/knowledge/extract). */
  extractLinks: (html: string, baseUrl: string) => Promise<string[]>;
  /** Stops the crawl: the iteration (or the promise) rejects with the signal's reason. */
  signal?: AbortSignal;
}

/** A page kept: its address after redirects, its media type and its bytes (never parsed here). */
export interface CrawledPage {
  /** The final address, after redirects (normalised: no fragment, no default port). */
  url: string;
  /** The media type alone, lower-case (`text/html`, `application/pdf`…). */
  contentType: string;
  bytes: Uint8Array;
  /** Links from the start page: 0 for the start page. */
  depth: number;
  /** Set when the page's links could not be read (its links were not followed; the page is kept). */
  linkError?: string;
}

/** Why an address was not kept. */
export type SkipReason =
  /** robots.txt disallows it for our user agent (or robots.txt could not be read: RFC 9309 §2.3.1.4). */
  | 'robots'
  /** A link to another site (scheme, host or port other than the start page's). */
  | 'off-site'
  /** Its body (or its Content-Length) is over `maxBytesPerPage`. */
  | 'too-large'
  /** The final answer's status was not 2xx. */
  | `http-${number}`
  /** The outbound guard refused the address (private, loopback, metadata, or a URL it does not accept). */
  | 'blocked'
  /** A content type that is not HTML, plain text, Markdown, PDF or DOCX. */
  | 'not-html-or-document'
  /** A redirect hop left the site (or went to a non-http scheme). */
  | 'redirect-off-site'
  /** More than 5 redirect hops. */
  | 'too-many-redirects'
  /** A redirect to an address already requested in this crawl (each address is requested once). */
  | 'duplicate'
  /** A connection failure or a timeout. */
  | 'unreachable'
  /** Found after `maxPages` addresses were requested. */
  | 'limit';

export interface SkippedPage {
  /** The address as linked (normalised), not a redirect's target. */
  url: string;
  reason: SkipReason;
  /** Links from the start page at which it was found. */
  depth: number;
  /** For people: the redirect target, the guard's message, the error. */
  detail?: string;
}

/** One step of a crawl, in the order it happened. */
export type CrawlEvent = { kind: 'page'; page: CrawledPage } | { kind: 'skipped'; skipped: SkippedPage };

export interface CrawlResult {
  /** In breadth-first order. */
  pages: CrawledPage[];
  skipped: SkippedPage[];
}

/** The most redirect hops followed from one address (RFC 9309 asks at least five for robots.txt). */
export const MAX_REDIRECTS = 5;
export const MAX_CRAWL_DEPTH = 3;
export const MAX_CRAWL_PAGES = 200;
/** robots.txt past this is ignored (RFC 9309 §2.5: parse at least 500 KiB). */
export const MAX_ROBOTS_BYTES = 512 * 1024;

/** Media types kept as pages. HTML ones are also the pages whose links are followed. */
export const HTML_TYPES: ReadonlySet<string> = new Set(['text/html', 'application/xhtml+xml']);
export const DOCUMENT_TYPES: ReadonlySet<string> = new Set([
  ...HTML_TYPES,
  'text/plain',
  'text/markdown',
  'text/x-markdown',
  'application/pdf',
  'application/x-pdf',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
]);

import { decodeText, isDocumentType, isHtmlType, pageMediaType } from './content-types';
import { discardBody, fetchFollowingRedirects, type Refusal, readBodyCapped, refusalOf } from './fetch-page';
import type { RobotsRules } from './robots';
import { fetchRobots } from './robots-fetch';
import {
  type CrawlEvent,
  type CrawledPage,
  type CrawlOptions,
  MAX_CRAWL_DEPTH,
  MAX_CRAWL_PAGES,
  type SkippedPage,
  type SkipReason,
} from './types';
import { isOnSite, normalizeUrl, robotsPath, siteOf } from './urls';

interface QueuedAddress {
  url: string;
  depth: number;
}

/**
 * The crawl of one site, breadth-first from its start page, as events (a page kept, an address
 * skipped) in the order they happen, so a caller can store each page as it comes instead of holding
 * them all. robots.txt is read first; an address the guard refuses for robots.txt ends the crawl
 * with the start page skipped `blocked`. Rejects with a TypeError for a start that is not an http(s)
 * URL, a RangeError for limits out of range, and the signal's reason when it aborts.
 */
export async function* crawlPages(start: string, options: CrawlOptions): AsyncGenerator<CrawlEvent> {
  checkLimits(options);
  const startUrl = normalizeUrl(start);
  if (!startUrl) throw new TypeError(`The start of a crawl must be an http(s) URL: ${start}`);
  const site = siteOf(startUrl);
  const robots = await fetchRobots(site, options);
  if ('blocked' in robots) {
    yield {
      kind: 'skipped',
      skipped: { url: startUrl, reason: 'blocked', depth: 0, detail: robots.blocked },
    };
    return;
  }
  yield* new SiteCrawl(site, robots.rules, options).run(startUrl);
}

function checkLimits(options: CrawlOptions): void {
  const integerIn = (name: string, value: number, min: number, max: number) => {
    if (!Number.isInteger(value) || value < min || value > max) {
      throw new RangeError(`${name} must be an integer from ${min} to ${max} (was ${value})`);
    }
  };
  integerIn('maxDepth', options.maxDepth, 0, MAX_CRAWL_DEPTH);
  integerIn('maxPages', options.maxPages, 1, MAX_CRAWL_PAGES);
  integerIn('maxBytesPerPage', options.maxBytesPerPage, 1, Number.MAX_SAFE_INTEGER);
}

/** A page fetched, with the links it leads to (none when they are not followed). */
interface FetchedPage {
  page: CrawledPage;
  links: string[];
}

class SiteCrawl {
  private readonly queue: QueuedAddress[] = [];
  private next = 0;
  /** Every address queued or recorded, so each is handled once. */
  private readonly seen = new Set<string>();
  /** Every address requested, redirect hops included, so none is requested twice. */
  private readonly requested = new Set<string>();

  constructor(
    private readonly site: string,
    private readonly robots: RobotsRules,
    private readonly options: CrawlOptions,
  ) {}

  async *run(startUrl: string): AsyncGenerator<CrawlEvent> {
    this.seen.add(startUrl);
    this.queue.push({ url: startUrl, depth: 0 });
    let pagesRequested = 0;
    while (this.next < this.queue.length) {
      this.options.signal?.throwIfAborted();
      const address = this.queue[this.next++];
      if (this.requested.has(address.url)) continue; // fetched already as a redirect's target
      if (!this.robots.isAllowed(robotsPath(address.url))) {
        yield skippedEvent(address, { reason: 'robots' });
        continue;
      }
      if (pagesRequested >= this.options.maxPages) {
        yield skippedEvent(address, { reason: 'limit', detail: `${this.options.maxPages} pages requested` });
        continue;
      }
      pagesRequested++;
      const fetched = await this.fetchPage(address, pagesRequested < this.options.maxPages);
      if ('reason' in fetched) {
        yield skippedEvent(address, fetched);
        continue;
      }
      yield { kind: 'page', page: fetched.page };
      yield* this.queueLinks(fetched.links, address.depth + 1);
    }
  }

  /** Queues the on-site links not seen yet; records the off-site ones. */
  private *queueLinks(links: readonly string[], depth: number): Generator<CrawlEvent> {
    for (const link of links) {
      const url = normalizeUrl(link);
      if (!url || this.seen.has(url)) continue;
      this.seen.add(url);
      if (isOnSite(url, this.site)) this.queue.push({ url, depth });
      else yield skippedEvent({ url, depth }, { reason: 'off-site' });
    }
  }

  /** Fetches one address (redirects followed) and, when `mayFollow` and it is HTML under maxDepth, reads its links. */
  private async fetchPage(address: QueuedAddress, mayFollow: boolean): Promise<FetchedPage | Refusal> {
    const { maxBytesPerPage, signal } = this.options;
    this.requested.add(address.url);
    const fetched = await fetchFollowingRedirects(address.url, this.options, (target) =>
      this.permitHop(target),
    );
    if (!fetched.ok) return fetched;
    const { response, url } = fetched;
    const redirectedTo = url === address.url ? undefined : `redirected to ${url}`;
    if (response.status < 200 || response.status >= 300) {
      await discardBody(response);
      return { reason: `http-${response.status}` as SkipReason, detail: redirectedTo };
    }
    const header = response.headers.get('content-type');
    const contentType = pageMediaType(header, url);
    if (!isDocumentType(contentType)) {
      await discardBody(response);
      return { reason: 'not-html-or-document', detail: contentType };
    }
    let bytes: Uint8Array | undefined;
    try {
      bytes = await readBodyCapped(response, maxBytesPerPage);
    } catch (error) {
      return refusalOf(error, signal);
    }
    if (!bytes) return { reason: 'too-large', detail: `over ${maxBytesPerPage} bytes` };
    const page: CrawledPage = { url, contentType, bytes, depth: address.depth };
    if (!mayFollow || !isHtmlType(contentType) || address.depth >= this.options.maxDepth)
      return { page, links: [] };
    try {
      return { page, links: await this.options.extractLinks(decodeText(bytes, header), url) };
    } catch (error) {
      signal?.throwIfAborted();
      return {
        page: { ...page, linkError: error instanceof Error ? error.message : String(error) },
        links: [],
      };
    }
  }

  /** A redirect hop stays on the site, within robots.txt, at an address not requested yet. */
  private permitHop(target: string): Refusal | undefined {
    if (!isOnSite(target, this.site)) return { reason: 'redirect-off-site', detail: target };
    if (!this.robots.isAllowed(robotsPath(target)))
      return { reason: 'robots', detail: `redirected to ${target}` };
    if (this.requested.has(target)) return { reason: 'duplicate', detail: `redirected to ${target}` };
    this.requested.add(target);
    this.seen.add(target);
    return undefined;
  }
}

function skippedEvent(address: QueuedAddress, refusal: Refusal): CrawlEvent {
  const skipped: SkippedPage = { url: address.url, reason: refusal.reason, depth: address.depth };
  if (refusal.detail) skipped.detail = refusal.detail;
  return { kind: 'skipped', skipped };
}

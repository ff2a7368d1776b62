import { crawlPages } from './crawler';
import type { CrawlOptions, CrawlResult } from './types';

/**
 * Site crawling for knowledge-base sources (issue 43: "a URL, optionally following links on the same
 * site to a depth and page limit"): pages fetched through the platform's guarded fetch, breadth-first
 * on the start page's site, within robots.txt, with redirects followed hop by hop. Bytes only: the
 * pages are read by src/knowledge/extract. docs/knowledge.md, "Crawling a site".
 *
 * `crawlPages` streams the crawl (a page at a time); `crawlSite` collects it.
 */

export { crawlPages } from './crawler';
export { matchesPattern, parseRobotsTxt, productToken, type RobotsRules } from './robots';
export {
  type CrawlEvent,
  type CrawledPage,
  type CrawlOptions,
  type CrawlResult,
  DOCUMENT_TYPES,
  HTML_TYPES,
  MAX_CRAWL_DEPTH,
  MAX_CRAWL_PAGES,
  MAX_REDIRECTS,
  type SkippedPage,
  type SkipReason,
} from './types';
export { normalizeUrl } from './urls';

/** The whole crawl of `start`'s site: the pages kept (breadth-first) and the addresses skipped, with why. */
export async function crawlSite(start: string, options: CrawlOptions): Promise<CrawlResult> {
  const result: CrawlResult = { pages: [], skipped: [] };
  for await (const event of crawlPages(start, options)) {
    if (event.kind === 'page') result.pages.push(event.page);
    else result.skipped.push(event.skipped);
  }
  return result;
}

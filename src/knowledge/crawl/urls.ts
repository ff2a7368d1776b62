/** Crawl addresses: one spelling per page, and what counts as the same site. */

/**
 * `raw` (resolved against `base`) as the crawl spells it: an absolute http(s) URL with no fragment,
 * no default port, a lower-case host and a path (WHATWG URL serialisation); the query is kept as it
 * is. Undefined when it is not an http(s) URL.
 */
export function normalizeUrl(raw: string, base?: string): string | undefined {
  let url: URL;
  try {
    url = new URL(raw, base);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  url.hash = '';
  return url.href;
}

/** The site of an address: scheme, host and port (`https://example.com`; `www.` is not special). */
export function siteOf(url: string): string {
  return new URL(url).origin;
}

/** Whether `url` is on `site` (the `siteOf` the start page). */
export function isOnSite(url: string, site: string): boolean {
  return siteOf(url) === site;
}

/** The path and query robots.txt rules are matched against (`/a/b?x=1`). */
export function robotsPath(url: string): string {
  const { pathname, search } = new URL(url);
  return `${pathname || '/'}${search}`;
}

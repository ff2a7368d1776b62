import { parseHtmlDocument } from './dom';

/** The links of a page, for the URL crawler. Pure: it parses, and fetches nothing. */

export interface LinkOptions {
  /** Keep only links to the page's own origin (scheme, host and port): what a site crawl follows. Default true. */
  sameOrigin?: boolean;
}

/**
 * The absolute http(s) addresses a page links to (`<a href>`, `<area href>`), in document order without
 * duplicates: resolved against the page's `<base href>` and then `baseUrl`, with any `#fragment` removed.
 * Links to the page itself (`#fragment` alone), `mailto:`, `javascript:` and other schemes are left out.
 */
export function extractLinks(html: string, baseUrl: string, options: LinkOptions = {}): string[] {
  const page = new URL(baseUrl);
  page.hash = '';
  const document = parseHtmlDocument(html);
  const base = resolve(document.querySelector('base[href]')?.getAttribute('href'), page) ?? page;
  const links = new Set<string>();
  for (const anchor of Array.from(document.querySelectorAll('a[href], area[href]'))) {
    const href = anchor.getAttribute('href')?.trim();
    if (href?.startsWith('#')) continue; // a place on this page, whatever <base> says
    const url = resolve(href, base);
    if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) continue;
    url.hash = '';
    if (url.href === page.href) continue;
    if ((options.sameOrigin ?? true) && url.origin !== page.origin) continue;
    links.add(url.href);
  }
  return [...links];
}

function resolve(href: string | null | undefined, base: URL): URL | undefined {
  if (!href?.trim()) return undefined;
  try {
    return new URL(href.trim(), base);
  } catch {
    return undefined;
  }
}

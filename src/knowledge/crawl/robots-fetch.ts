import { discardBody, type FetchSettings, fetchFollowingRedirects, readBodyCapped } from './fetch-page';
import { ALLOW_ALL, DISALLOW_ALL, parseRobotsTxt, type RobotsRules } from './robots';
import { MAX_ROBOTS_BYTES } from './types';

/** A site's robots.txt as rules, or the guard's refusal of the site's address. */
export type SiteRobots = { rules: RobotsRules } | { blocked: string };

/**
 * The robots.txt of `site` (`https://example.com`) for `settings.userAgent`, fetched once through
 * the crawl's fetch, as RFC 9309 §2.3.1 says:
 * - 2xx: its rules (the first 512 KiB; the rest is ignored);
 * - redirects: followed, up to five hops, to any http(s) address (each hop guarded); more: unavailable;
 * - 4xx but 429 ("unavailable"): everything allowed;
 * - 429, 5xx, another status, a connection failure or timeout ("unreachable"): nothing allowed;
 * - an address the guard refuses: `blocked` (no page of the site can be fetched either).
 * `Crawl-delay` is not read: the crawl requests one page at a time and at most 200.
 */
export async function fetchRobots(site: string, settings: FetchSettings): Promise<SiteRobots> {
  const fetched = await fetchFollowingRedirects(`${site}/robots.txt`, settings, () => undefined);
  if (!fetched.ok) {
    if (fetched.reason === 'blocked') return { blocked: fetched.detail ?? 'the address is refused' };
    return { rules: fetched.reason === 'too-many-redirects' ? ALLOW_ALL : DISALLOW_ALL };
  }
  const { response } = fetched;
  if (response.status >= 200 && response.status < 300) {
    try {
      const bytes = await readBodyCapped(response, MAX_ROBOTS_BYTES, { truncate: true });
      const text = new TextDecoder('utf-8').decode(bytes);
      return { rules: parseRobotsTxt(text, settings.userAgent) };
    } catch {
      if (settings.signal?.aborted) throw settings.signal.reason;
      return { rules: DISALLOW_ALL }; // the body failed mid-way: unreachable
    }
  }
  await discardBody(response);
  const unavailable = response.status >= 400 && response.status < 500 && response.status !== 429;
  return { rules: unavailable ? ALLOW_ALL : DISALLOW_ALL };
}

import http from 'node:http';
import type { AddressInfo } from 'node:net';
import ipaddr from 'ipaddr.js';
import {
  type CrawlOptions,
  type CrawlResult,
  crawlPages,
  crawlSite,
  matchesPattern,
  parseRobotsTxt,
} from '../src/knowledge/crawl';
import { extractLinks } from '../src/knowledge/extract';
import { type FetchLike, guardedFetch } from '../src/outbound/fetch';

/**
 * Site crawling through the real guarded fetch, against a small site served here on 127.0.0.1: a
 * policy that refuses private addresses but lists 127.0.0.1/32 (as OUTBOUND_ALLOW_CIDRS would) lets
 * the crawl reach this site and no other loopback address.
 */

const PDF_BYTES = Buffer.from('%PDF-1.4\n1 0 obj << >> endobj\ntrailer << >>\n%%EOF\n');
const CAP = 8 * 1024;

const html = (title: string, links: string[]) =>
  `<!doctype html><html><head><title>${title}</title></head><body><nav>${links
    .map((href) => `<a href="${href}">${href}</a>`)
    .join(' ')}</nav><h1>${title}</h1></body></html>`;

let server: http.Server;
let base: string;
let port: number;
/** The path of every request the site answered, in order. */
let hits: string[] = [];
let userAgents: string[] = [];
let robots: { status: number; body: string; location?: string };
const ROBOTS_TXT =
  'User-agent: *\nDisallow: /private/\nCrawl-delay: 10\n\nUser-agent: StrictBot\nDisallow: /\n';

type Route = (res: http.ServerResponse) => void;
const page =
  (title: string, links: string[]): Route =>
  (res) =>
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html(title, links));
const redirect =
  (to: () => string, status = 302): Route =>
  (res) =>
    res.writeHead(status, { location: to() }).end();

const ROUTES: Record<string, Route> = {
  '/robots.txt': (res) =>
    res
      .writeHead(robots.status, {
        'content-type': 'text/plain',
        ...(robots.location && { location: robots.location }),
      })
      .end(robots.body),
  '/rules.txt': (res) =>
    res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nDisallow: /'),
  '/': page('Home', [
    '/about',
    '/docs/',
    '/private/secret',
    'https://example.org/elsewhere',
    '/docs/guide.pdf',
    '/big',
    '/big-chunked',
    '/moved',
    '/old-about',
    '/away',
    '/image.png',
    '/missing',
    '/about#team',
    '/loop/1',
    '/to-private',
    '/search?q=voice',
  ]),
  '/about': page('About', ['/', '/about/team']),
  '/about/team': page('Team', ['/about/team/history']),
  '/about/team/history': page('History', []),
  '/docs/': page('Docs', ['/docs/guide.pdf', '/docs/faq.txt', '/docs/manual.pdf']),
  '/docs/guide.pdf': (res) =>
    res
      .writeHead(200, { 'content-type': 'application/pdf', 'content-length': PDF_BYTES.length })
      .end(PDF_BYTES),
  '/docs/manual.pdf': (res) =>
    res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(PDF_BYTES),
  '/docs/faq.txt': (res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('Q: what? A: this.'),
  '/search?q=voice': page('Search', []),
  '/big': (res) => res.writeHead(200, { 'content-type': 'text/html' }).end('x'.repeat(CAP * 3)),
  '/big-chunked': (res) => {
    res.writeHead(200, { 'content-type': 'text/html' }); // no Content-Length: the cap applies as it reads
    for (let i = 0; i < 3; i++) res.write('y'.repeat(CAP));
    res.end();
  },
  '/moved': redirect(() => '/moved-here', 301),
  '/moved-here': page('Moved here', []),
  '/old-about': redirect(() => `${base}/about`),
  '/away': redirect(() => `http://127.0.0.2:${port}/`),
  '/image.png': (res) => res.writeHead(200, { 'content-type': 'image/png' }).end(Buffer.from([0x89, 0x50])),
  '/to-private': redirect(() => '/private/inside'),
  '/private/secret': page('Secret', []),
};

function route(path: string): Route | undefined {
  const loop = path.match(/^\/loop\/(\d+)$/);
  if (loop) return redirect(() => `/loop/${Number(loop[1]) + 1}`);
  return ROUTES[path];
}

/** Refuses private addresses, but lists this site's address (as OUTBOUND_ALLOW_CIDRS would). */
const POLICY = { allowPrivate: false, allowHttp: true, allowCidrs: [ipaddr.parseCIDR('127.0.0.1/32')] };
const LIMITS = { maxBytes: 1024 * 1024, timeoutMs: 5_000 };

function options(overrides: Partial<CrawlOptions> = {}): CrawlOptions {
  return {
    maxDepth: 2,
    maxPages: 50,
    maxBytesPerPage: CAP,
    userAgent: 'KnowledgeBot/1.0 (+https://example.com/bot)',
    fetch: guardedFetch(POLICY, LIMITS),
    extractLinks: (body, url) => extractLinks(body, url, { sameOrigin: false }),
    ...overrides,
  };
}

const pathsOf = (result: CrawlResult) => result.pages.map((p) => p.url.replace(base, ''));
const skippedOf = (result: CrawlResult) =>
  Object.fromEntries(result.skipped.map((s) => [s.url.replace(base, ''), s.reason]));

beforeAll(async () => {
  server = http.createServer((req, res) => {
    hits.push(req.url ?? '');
    userAgents.push(req.headers['user-agent'] ?? '');
    const answer = route(req.url ?? '');
    if (answer) answer(res);
    else res.writeHead(404, { 'content-type': 'text/html' }).end('not here');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
  base = `http://127.0.0.1:${port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

beforeEach(() => {
  hits = [];
  userAgents = [];
  robots = { status: 200, body: ROBOTS_TXT };
});

describe('crawlSite', () => {
  it('crawls the site breadth-first to maxDepth, each address once, and says why each other address was skipped', async () => {
    const result = await crawlSite(`${base}/`, options());
    expect(pathsOf(result)).toEqual([
      '/',
      '/about',
      '/docs/',
      '/docs/guide.pdf',
      '/moved-here',
      '/search?q=voice',
      '/about/team',
      '/docs/faq.txt',
      '/docs/manual.pdf',
    ]);
    expect(result.pages.map((p) => [p.url.replace(base, ''), p.depth, p.contentType])).toEqual([
      ['/', 0, 'text/html'],
      ['/about', 1, 'text/html'],
      ['/docs/', 1, 'text/html'],
      ['/docs/guide.pdf', 1, 'application/pdf'],
      ['/moved-here', 1, 'text/html'], // the address after the redirect, at the depth of the link
      ['/search?q=voice', 1, 'text/html'],
      ['/about/team', 2, 'text/html'],
      ['/docs/faq.txt', 2, 'text/plain'],
      ['/docs/manual.pdf', 2, 'application/pdf'], // served as application/octet-stream
    ]);
    const pdf = result.pages.find((p) => p.url.endsWith('/docs/guide.pdf'))!;
    expect(Buffer.from(pdf.bytes).equals(PDF_BYTES)).toBe(true); // bytes as served, not parsed
    expect(skippedOf(result)).toEqual({
      'https://example.org/elsewhere': 'off-site',
      '/private/secret': 'robots',
      '/big': 'too-large', // Content-Length over the cap
      '/big-chunked': 'too-large', // no Content-Length: stopped as it passed the cap
      '/old-about': 'duplicate', // redirects to /about, fetched already
      '/away': 'redirect-off-site',
      '/image.png': 'not-html-or-document',
      '/missing': 'http-404',
      '/loop/1': 'too-many-redirects',
      '/to-private': 'robots', // a redirect into /private/
    });
    expect(result.skipped.find((s) => s.url.endsWith('/away'))?.detail).toBe(`http://127.0.0.2:${port}/`);

    // robots.txt once, each address at most once, nothing disallowed, nothing past maxDepth
    expect(hits.filter((h) => h === '/robots.txt')).toHaveLength(1);
    expect(new Set(hits).size).toBe(hits.length);
    expect(hits.filter((h) => h.startsWith('/private/') || h === '/about/team/history')).toEqual([]);
    expect(hits.filter((h) => h.startsWith('/loop/'))).toEqual([
      '/loop/1',
      ...[2, 3, 4, 5, 6].map((n) => `/loop/${n}`),
    ]);
    expect(new Set(userAgents)).toEqual(new Set(['KnowledgeBot/1.0 (+https://example.com/bot)']));
  });

  it('maxDepth 0 fetches the start page only; 1 follows its links but not theirs; 3 goes three links deep', async () => {
    const none = await crawlSite(base, options({ maxDepth: 0 }));
    expect([pathsOf(none), none.skipped, hits]).toEqual([['/'], [], ['/robots.txt', '/']]);

    const one = await crawlSite(base, options({ maxDepth: 1 }));
    expect(pathsOf(one)).toContain('/about');
    expect(pathsOf(one)).not.toContain('/about/team');

    const three = await crawlSite(base, options({ maxDepth: 3 }));
    expect(three.pages.find((p) => p.url.endsWith('/about/team/history'))?.depth).toBe(3);
  });

  it('requests at most maxPages addresses; the ones left are skipped as limit', async () => {
    const result = await crawlSite(base, options({ maxPages: 4 }));
    expect(pathsOf(result)).toEqual(['/', '/about', '/docs/', '/docs/guide.pdf']);
    expect(hits).toEqual(['/robots.txt', '/', '/about', '/docs/', '/docs/guide.pdf']);
    const skipped = skippedOf(result);
    expect(skipped['/private/secret']).toBe('robots'); // disallowed addresses cost no page
    expect(skipped['/big']).toBe('limit');
    expect(skipped['/docs/faq.txt']).toBe('limit');
  });

  it('follows redirects hop by hop, each through the given fetch with redirect: manual', async () => {
    const requests: string[] = [];
    const guarded = guardedFetch(POLICY, LIMITS);
    const recording: FetchLike = (url, init) => {
      requests.push(`${url} ${init?.redirect}`);
      return guarded(url, init);
    };
    const result = await crawlSite(`${base}/moved`, options({ fetch: recording }));
    expect(pathsOf(result)).toEqual(['/moved-here']);
    expect(requests).toEqual([
      `${base}/robots.txt manual`,
      `${base}/moved manual`,
      `${base}/moved-here manual`,
    ]);
  });

  it('obeys robots.txt for its user agent; a missing one allows everything, an unreachable one nothing', async () => {
    const strict = await crawlSite(base, options({ userAgent: 'strictbot/2.0' }));
    expect([strict.pages, skippedOf(strict), hits]).toEqual([[], { '/': 'robots' }, ['/robots.txt']]);

    robots = { status: 503, body: 'down' };
    hits = [];
    const unreachable = await crawlSite(base, options());
    expect([unreachable.pages, skippedOf(unreachable), hits]).toEqual([
      [],
      { '/': 'robots' },
      ['/robots.txt'],
    ]);

    robots = { status: 302, body: '', location: '/rules.txt' }; // redirects are followed
    hits = [];
    const moved = await crawlSite(base, options());
    expect([moved.pages, skippedOf(moved), hits]).toEqual([
      [],
      { '/': 'robots' },
      ['/robots.txt', '/rules.txt'],
    ]);

    robots = { status: 404, body: '' };
    const missing = await crawlSite(base, options({ maxDepth: 1 }));
    expect(pathsOf(missing)).toContain('/private/secret');
  });

  it('an address the guard refuses is skipped as blocked, and never reached', async () => {
    // 127.0.0.2 is loopback outside the listed 127.0.0.1/32
    const elsewhere = await crawlSite(`http://127.0.0.2:${port}/`, options());
    expect(elsewhere.pages).toEqual([]);
    expect(elsewhere.skipped).toEqual([
      expect.objectContaining({ url: `http://127.0.0.2:${port}/`, reason: 'blocked', depth: 0 }),
    ]);
    // a policy without the listed network refuses the site itself
    const strict = guardedFetch({ allowPrivate: false, allowHttp: true }, LIMITS);
    const refused = await crawlSite(base, options({ fetch: strict }));
    expect([refused.pages, skippedOf(refused)]).toEqual([[], { '/': 'blocked' }]);
    expect(hits).toEqual([]);
  });

  it('crawlPages streams the crawl; an abort ends it with the signal reason', async () => {
    const controller = new AbortController();
    const seen: string[] = [];
    const crawl = (async () => {
      for await (const event of crawlPages(base, options({ signal: controller.signal }))) {
        if (event.kind === 'page') seen.push(event.page.url);
        if (seen.length === 2) controller.abort(new Error('stop'));
      }
    })();
    await expect(crawl).rejects.toThrow('stop');
    expect(seen).toHaveLength(2);
  });

  it('refuses a start that is not an http(s) URL and limits out of range', async () => {
    await expect(crawlSite('ftp://example.com/', options())).rejects.toThrow(TypeError);
    await expect(crawlSite(base, options({ maxDepth: 4 }))).rejects.toThrow(RangeError);
    await expect(crawlSite(base, options({ maxPages: 0 }))).rejects.toThrow(RangeError);
    await expect(crawlSite(base, options({ maxPages: 201 }))).rejects.toThrow(RangeError);
    expect(hits).toEqual([]);
  });

  it('a page is skipped as unreachable when its connection fails', async () => {
    const failing: FetchLike = async (url, init) => {
      if (String(url).endsWith('/about'))
        throw new TypeError('fetch failed', { cause: new Error('ECONNRESET') });
      return guardedFetch(POLICY, LIMITS)(url, init);
    };
    const result = await crawlSite(base, options({ maxDepth: 1, fetch: failing }));
    expect(skippedOf(result)['/about']).toBe('unreachable');
  });
});

describe('robots.txt rules (RFC 9309)', () => {
  const rules = (text: string, agent = 'ExampleBot/1.0') => parseRobotsTxt(text, agent);

  it('the longest matching rule wins, Allow on a tie; no rule allows', () => {
    const robotsTxt = rules(
      'User-agent: *\nDisallow: /docs/\nAllow: /docs/public/\nDisallow: /page\nAllow: /page\nDisallow: /x/y\nAllow: /x',
    );
    expect(robotsTxt.isAllowed('/docs/secret')).toBe(false);
    expect(robotsTxt.isAllowed('/docs/public/a')).toBe(true);
    expect(robotsTxt.isAllowed('/page')).toBe(true); // equal length: Allow
    expect(robotsTxt.isAllowed('/x/y/z')).toBe(false);
    expect(robotsTxt.isAllowed('/x/z')).toBe(true);
    expect(robotsTxt.isAllowed('/elsewhere')).toBe(true);
    expect(robotsTxt.isAllowed('/robots.txt')).toBe(true);
  });

  it('* matches any characters and a final $ the end of the path; the query counts', () => {
    const robotsTxt = rules('User-agent: *\nDisallow: /*.pdf$\nDisallow: /*?session=\nDisallow: /a$b');
    expect(robotsTxt.isAllowed('/files/guide.pdf')).toBe(false);
    expect(robotsTxt.isAllowed('/files/guide.pdf?v=2')).toBe(true);
    expect(robotsTxt.isAllowed('/cart?session=1')).toBe(false);
    expect(robotsTxt.isAllowed('/a$b/c')).toBe(false); // a $ inside the pattern is a character
    expect(matchesPattern('/*/*/*/*/*/*/*/*/*/*/*/*/*/*/*b', `/${'a/'.repeat(5000)}`)).toBe(false); // fast
  });

  it('picks the groups naming its product token (merged), else the * groups', () => {
    const text = [
      '# comment',
      'Disallow: /before-any-group',
      'User-agent: OtherBot',
      'User-agent: examplebot/3.0 # same product token',
      'Disallow: /one',
      'User-agent: *',
      'Disallow: /',
      'Crawl-delay: 5',
      'User-agent: ExampleBot',
      'Disallow: /two',
    ].join('\r\n');
    const mine = rules(text);
    expect([mine.isAllowed('/one'), mine.isAllowed('/two'), mine.isAllowed('/three')]).toEqual([
      false,
      false,
      true,
    ]);
    const other = rules(text, 'SomeoneElse');
    expect(other.isAllowed('/three')).toBe(false);
    expect(rules('User-agent: OtherBot\nDisallow: /', 'SomeoneElse').isAllowed('/x')).toBe(true);
    expect(rules('User-agent: *\nDisallow:').isAllowed('/x')).toBe(true); // an empty Disallow is no rule
  });

  it('compares percent-encoded and UTF-8 paths alike', () => {
    const robotsTxt = rules('User-agent: *\nDisallow: /café\nDisallow: /%7euser');
    expect(robotsTxt.isAllowed('/caf%C3%A9/menu')).toBe(false);
    expect(robotsTxt.isAllowed('/caf%c3%a9')).toBe(false);
    expect(robotsTxt.isAllowed('/%7Euser/x')).toBe(false);
    expect(robotsTxt.isAllowed('/~user/x')).toBe(false);
  });
});

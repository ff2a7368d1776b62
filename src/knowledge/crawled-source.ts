import type { Knex } from 'knex';
import { ANSWER_LIMITS } from '../outbound/answer-limits';
import { guardedFetch } from '../outbound/fetch';
import type { OutboundPolicy } from '../outbound/http';
import { crawlPages, type SkippedPage } from './crawl';
import { extractLinks } from './extract';
import type { CrawlSettings } from './knowledge.entity';

/** Who the crawler says it is: robots.txt groups for `VoicePlatformBot` apply. */
export const CRAWLER_USER_AGENT = 'VoicePlatformBot/1.0 (knowledge sources)';

/** Why the start page was not read, in plain words (the source's `failureReason`). */
function startPageReason(start: string, skipped: SkippedPage | undefined): string {
  if (!skipped) return `${start} had no page to read.`;
  const why: Record<string, string> = {
    robots: "the site's robots.txt does not allow it",
    blocked: 'it is on a private network, which sources may not reach',
    'too-large': 'it is over the 20 MB limit',
    'redirect-off-site': 'it redirects to another site',
    'too-many-redirects': 'it redirects more than 5 times',
    unreachable: 'it could not be reached',
    'not-html-or-document': 'it is not a web page or a document',
  };
  const reason = why[skipped.reason] ?? `it answered ${skipped.reason.replace('http-', 'HTTP ')}`;
  return `${start} was not read: ${reason}.`;
}

/**
 * A URL source with `crawl`: the start page and the pages it links to on the same site, to
 * `maxDepth` links and `maxPages` pages (src/knowledge/crawl: robots.txt obeyed, every request and
 * redirect through the outbound guard), each stored as a document of the source (ordinal 0, 1, …)
 * as it is read, so no crawl is held in memory. Answers the bytes stored, or why nothing was.
 */
export async function storeCrawledPages(
  trx: Knex,
  policy: OutboundPolicy,
  input: { sourceId: string; url: string; crawl: CrawlSettings },
): Promise<{ ok: true; bytes: number; pages: number } | { ok: false; reason: string }> {
  await trx.raw('delete from knowledge_source_documents where source_id = ?', [input.sourceId]);
  let pages = 0;
  let bytes = 0;
  let firstSkip: SkippedPage | undefined;
  for await (const event of crawlPages(input.url, {
    ...input.crawl,
    maxBytesPerPage: ANSWER_LIMITS.knowledgeSource.maxBytes,
    userAgent: CRAWLER_USER_AGENT,
    fetch: guardedFetch(policy, ANSWER_LIMITS.knowledgeSource),
    extractLinks: (html, base) => extractLinks(html, base, { sameOrigin: true }),
  })) {
    if (event.kind === 'skipped') {
      firstSkip ??= event.skipped;
      continue;
    }
    const { page } = event;
    await trx.raw(
      'insert into knowledge_source_documents (source_id, ordinal, url, content_type, file_name, content) values (?, ?, ?, ?, null, ?)',
      [input.sourceId, pages, page.url, page.contentType.slice(0, 200), Buffer.from(page.bytes)],
    );
    pages += 1;
    bytes += page.bytes.byteLength;
  }
  return pages > 0
    ? { ok: true, bytes, pages }
    : { ok: false, reason: startPageReason(input.url, firstSkip) };
}

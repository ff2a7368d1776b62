import { Readability } from '@mozilla/readability';
import { collapsedText, type DomDocument, type DomElement, type DomNode, parseHtmlDocument } from './dom';
import { removeUnreadable, sectionsOf } from './html-sections';
import type { ExtractedDocument } from './types';

/**
 * HTML pages to text. A web page is mostly not its article: navigation, banners, footers, forms, cookie
 * notices. They go first (by element, ARIA role and cookie-banner class/id); then the main content is the
 * page's own `<main>`/`<article>` if it marks one, else what Mozilla Readability (Firefox Reader View's
 * algorithm) finds, else the whole remaining body. The result is split into sections at its headings.
 * Nothing runs: the markup is parsed (linkedom), never rendered, and scripts are dropped unread.
 */

/** Page furniture, always dropped. */
const NAVIGATION_SELECTOR =
  'nav, form, dialog, [role="navigation"], [role="banner"], [role="contentinfo"], [role="search"], ' +
  '[role="dialog"], [role="alertdialog"], [role="menu"], [role="menubar"], [role="toolbar"]';
/** Dropped unless inside the main content, where they are the article's own header, footer or aside. */
const FURNITURE_OUTSIDE_CONTENT_SELECTOR = 'header, footer, aside, [role="complementary"]';
const CONTENT_SELECTOR = 'main, article, [role="main"]';
/** Ids and classes of cookie and consent banners (OneTrust, Cookiebot, Osano, cookieconsent…). */
const CONSENT_BANNER = /cookie|consent|gdpr|onetrust|cookiebot|osano|cc-window|cc-banner/i;
/** A consent banner is short; a longer element whose class mentions cookies is probably content. */
const CONSENT_BANNER_MAX_CHARS = 2_000;

function removeNoise(document: DomDocument): void {
  removeUnreadable(document);
  for (const element of Array.from(document.querySelectorAll(NAVIGATION_SELECTOR))) element.remove();
  for (const element of Array.from(document.querySelectorAll(FURNITURE_OUTSIDE_CONTENT_SELECTOR))) {
    const container = element.closest(CONTENT_SELECTOR);
    if (!container || container === element) element.remove();
  }
  for (const element of Array.from(document.querySelectorAll('[id], [class]'))) {
    if (['HTML', 'BODY', 'MAIN', 'ARTICLE'].includes(element.tagName)) continue;
    const names = `${element.getAttribute('id') ?? ''} ${element.getAttribute('class') ?? ''}`;
    if (CONSENT_BANNER.test(names) && collapsedText(element).length <= CONSENT_BANNER_MAX_CHARS) {
      element.remove();
    }
  }
}

/** The page's own main content: its one `<main>` (or role=main), else its one `<article>`. */
function markedContent(document: DomDocument): DomElement | undefined {
  for (const selector of ['main, [role="main"]', 'article']) {
    const found = Array.from(document.querySelectorAll(selector));
    if (found.length === 1 && collapsedText(found[0])) return found[0];
  }
  return undefined;
}

/** What Readability takes for the article, or undefined when it finds nothing. */
function readableContent(document: DomDocument): DomNode | undefined {
  try {
    // Readability rewrites the document it reads: give it a copy, so the fallback has the whole body
    const copy = document.cloneNode(true);
    const article = new Readability<DomNode>(copy as never, { serializer: (node) => node as never }).parse();
    return article?.content && collapsedText(article.content) ? article.content : undefined;
  } catch {
    return undefined;
  }
}

/** The page's title: its first h1, else `<title>`, else its og:title. */
function titleOf(document: DomDocument): string | null {
  const heading = document.querySelector('h1');
  const meta = document.querySelector('meta[property="og:title"]')?.getAttribute('content');
  const candidates = [heading ? collapsedText(heading) : '', document.title ?? '', meta ?? ''];
  return candidates.map((text) => text.replace(/\s+/g, ' ').trim()).find(Boolean) ?? null;
}

export interface HtmlOptions {
  /** A web page: drop navigation noise and keep only the main content. Off for converted documents. */
  mainContentOnly: boolean;
}

/** An HTML document's title and heading sections; see the module comment. */
export function htmlToDocument(html: string, options: HtmlOptions): ExtractedDocument {
  const document = parseHtmlDocument(html);
  // the title first: <head> and the page's header go with the noise
  const title = titleOf(document);
  if (!options.mainContentOnly) {
    removeUnreadable(document);
    return { title, sections: sectionsOf(document.body ?? document.documentElement) };
  }
  removeNoise(document);
  const content = markedContent(document) ?? readableContent(document) ?? document.body;
  return { title, sections: content ? sectionsOf(content) : [] };
}

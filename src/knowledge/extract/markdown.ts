import MarkdownIt from 'markdown-it';
import { htmlToDocument } from './html';
import type { ExtractedDocument } from './types';

/**
 * Markdown to text, through markdown-it (CommonMark, with tables): rendered to HTML, which then goes the
 * HTML way, so `#`/`##`/`===` headings become sections and lists, tables and code keep their lines. HTML
 * written inside the Markdown is parsed like any page's (its scripts and styles are dropped). A leading
 * YAML front-matter block is not text; its `title:` becomes the document's title.
 */

const markdown = new MarkdownIt({ html: true, linkify: false, typographer: false });

/** `---` at the very start, up to the next `---` (or `...`) line. */
const FRONT_MATTER = /^---[^\S\n]*\r?\n([\s\S]*?)\r?\n(?:---|\.\.\.)[^\S\n]*(?:\r?\n|$)/;
const FRONT_MATTER_TITLE = /^title:[^\S\n]*(.+?)[^\S\n]*$/m;

function splitFrontMatter(source: string): { body: string; title: string | null } {
  const match = FRONT_MATTER.exec(source);
  if (!match) return { body: source, title: null };
  const title = FRONT_MATTER_TITLE.exec(match[1])?.[1]
    .replace(/^(["'])(.*)\1$/, '$2')
    .trim();
  return { body: source.slice(match[0].length), title: title || null };
}

export function markdownToDocument(source: string): ExtractedDocument {
  const { body, title } = splitFrontMatter(source.replace(/^\uFEFF/, ''));
  const document = htmlToDocument(markdown.render(body), { mainContentOnly: false });
  return { ...document, title: title ?? document.title };
}

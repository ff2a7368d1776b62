import { collapsedText, type DomElement, type DomNode, isElement, TEXT_NODE } from './dom';
import { normalizeText } from './normalize';
import type { ExtractedSection } from './types';

/**
 * Splits a DOM subtree into sections at its h1–h6 headings, wherever they are nested, and turns what lies
 * between them into plain text: blocks become paragraphs, list items `- ` lines (`1. ` in ordered lists),
 * table rows cells joined by ` | `. Markup that is never text (scripts, styles, media…) must have been
 * removed first (see `removeUnreadable`).
 */

const HEADING = /^H([1-6])$/;

/** Elements that start a new line of text. */
const BLOCKS = new Set(
  (
    'ADDRESS ARTICLE ASIDE BLOCKQUOTE CAPTION DD DETAILS DIV DL DT FIELDSET FIGCAPTION FIGURE FOOTER HEADER ' +
    'HR LI MAIN NAV OL P PRE SECTION SUMMARY TABLE TBODY TFOOT THEAD TR UL'
  ).split(' '),
);

/** Elements whose content is never document text, in any format. */
export const UNREADABLE_SELECTOR =
  'script, style, noscript, template, iframe, object, embed, svg, math, canvas, video, audio, img, picture, ' +
  'map, head, link, meta, button, input, select, textarea, [hidden], [aria-hidden="true"]';

/** Removes every element that is never text (see UNREADABLE_SELECTOR); run before `sectionsOf`. */
export function removeUnreadable(root: { querySelectorAll(selectors: string): ArrayLike<DomElement> }): void {
  for (const element of Array.from(root.querySelectorAll(UNREADABLE_SELECTOR))) element.remove();
}

/**
 * Appends a subtree's text to `out`: source whitespace collapsed as a browser would (kept inside `<pre>`),
 * line breaks marked with `\n` and paragraph breaks with `\n\n`.
 */
function renderText(node: DomNode, out: string[], preformatted = false): void {
  if (node.nodeType === TEXT_NODE) {
    const text = node.textContent ?? '';
    out.push(preformatted ? text : text.replace(/\s+/g, ' '));
    return;
  }
  if (!isElement(node)) return;
  const tag = node.tagName;
  if (tag === 'BR') return void out.push('\n');
  if (tag === 'LI') out.push(`\n${listMarker(node)}`);
  else if (tag === 'TD' || tag === 'TH') out.push(isFirstCell(node) ? '' : ' | ');
  else if (tag === 'TR' || tag === 'DT' || tag === 'DD') out.push('\n');
  else if (BLOCKS.has(tag)) out.push('\n\n');
  for (const child of Array.from(node.childNodes)) renderText(child, out, preformatted || tag === 'PRE');
  if (BLOCKS.has(tag) && tag !== 'LI' && tag !== 'TR') out.push('\n\n');
}

function listMarker(item: DomElement): string {
  const list = item.parentElement;
  if (list?.tagName !== 'OL') return '- ';
  const items = Array.from(list.children).filter((child) => child.tagName === 'LI');
  const start = Number.parseInt(list.getAttribute('start') ?? '1', 10) || 1;
  return `${start + items.indexOf(item)}. `;
}

function isFirstCell(cell: DomElement): boolean {
  const row = cell.parentElement;
  const cells = row ? Array.from(row.children).filter((c) => c.tagName === 'TD' || c.tagName === 'TH') : [];
  return cells[0] === cell;
}

/** Rendered pieces as normalised text. */
function joinRendered(pieces: string[]): string {
  const text = normalizeText(pieces.join(''));
  // a list item holding paragraphs (`<li><p>…`) left its marker on a line of its own
  return text.replace(/^(-|\d+\.)\n+(?=\S)/gm, '$1 ');
}

/** Plain text of a subtree (paragraphs separated by a blank line), normalised. */
export function textOf(node: DomNode): string {
  const out: string[] = [];
  renderText(node, out);
  return joinRendered(out);
}

function containsHeading(element: DomElement): boolean {
  return element.querySelector('h1, h2, h3, h4, h5, h6') !== null;
}

/** Collects sections while the DOM is walked in document order. */
class SectionCollector {
  readonly sections: ExtractedSection[] = [];
  private heading: string | null = null;
  private level = 0;
  private parts: string[] = [];
  /** Inline text (and inline elements) met outside any block, waiting to become one paragraph. */
  private inline: string[] = [];

  startSection(heading: string, level: number): void {
    this.finishSection();
    this.heading = heading;
    this.level = level;
  }

  addBlock(text: string): void {
    this.flushInline();
    if (text) this.parts.push(text);
  }

  addInline(node: DomNode): void {
    renderText(node, this.inline);
  }

  flushInline(): void {
    const text = joinRendered(this.inline);
    this.inline = [];
    if (text) this.parts.push(text);
  }

  finishSection(): void {
    this.flushInline();
    const text = normalizeText(this.parts.join('\n\n'));
    if (this.heading !== null || text) this.sections.push({ heading: this.heading, level: this.level, text });
    this.parts = [];
  }
}

function walk(parent: DomNode, collector: SectionCollector): void {
  for (const node of Array.from(parent.childNodes)) {
    if (!isElement(node)) {
      if (node.nodeType === TEXT_NODE) collector.addInline(node);
      continue;
    }
    const heading = HEADING.exec(node.tagName);
    if (heading) {
      const title = collapsedText(node);
      if (title) collector.startSection(title, Number(heading[1]));
    } else if (containsHeading(node)) {
      collector.flushInline();
      walk(node, collector);
      collector.flushInline();
    } else if (BLOCKS.has(node.tagName)) {
      collector.addBlock(textOf(node));
    } else {
      collector.addInline(node);
    }
  }
}

/**
 * The sections of a subtree: one per heading (its text up to the next heading of any level), plus one
 * without a heading for any text before the first. A heading with no text of its own (say, followed at
 * once by a subheading) still makes a section with empty text, so the heading path stays whole.
 */
export function sectionsOf(root: DomNode): ExtractedSection[] {
  const collector = new SectionCollector();
  walk(root, collector);
  collector.finishSection();
  return collector.sections;
}

import { createRequire } from 'node:module';

/**
 * The small part of the DOM that extraction uses, typed here because the project compiles without the
 * DOM library. linkedom (a fast, pure-JavaScript, standards-following DOM without a browser) provides it:
 * it parses markup only, and never loads resources nor runs scripts.
 */
export interface DomNode {
  nodeType: number;
  nodeName: string;
  textContent: string | null;
  childNodes: ArrayLike<DomNode>;
  parentElement: DomElement | null;
}

export interface DomElement extends DomNode {
  /** Upper-case for HTML elements: `P`, `H2`. */
  tagName: string;
  children: ArrayLike<DomElement>;
  getAttribute(name: string): string | null;
  querySelector(selectors: string): DomElement | null;
  querySelectorAll(selectors: string): ArrayLike<DomElement>;
  closest(selectors: string): DomElement | null;
  remove(): void;
}

export interface DomDocument {
  documentElement: DomElement;
  body: DomElement | null;
  title: string;
  cloneNode(deep: true): DomDocument;
  querySelector(selectors: string): DomElement | null;
  querySelectorAll(selectors: string): ArrayLike<DomElement>;
}

export const ELEMENT_NODE = 1;
export const TEXT_NODE = 3;

interface Linkedom {
  parseHTML(markup: string): { document: unknown };
}

let linkedom: Linkedom | undefined;

/**
 * linkedom's package types describe only its ES module build, which tsc will not let this CommonJS file
 * import; its CommonJS build (the same API) is required instead. That build requires ES-module-only
 * dependencies (css-select), which Node.js loads natively (require(esm)) but jest cannot: so this runs
 * only in an extraction thread (thread.ts), never in the calling process.
 */
function loadLinkedom(): Linkedom {
  linkedom ??= createRequire(__filename)('linkedom') as Linkedom;
  return linkedom;
}

/** Parses a whole page; a fragment (mammoth's and markdown-it's output) is put in a page's body first. */
export function parseHtmlDocument(html: string): DomDocument {
  const whole = /<html[\s>]/i.test(html)
    ? html
    : `<!doctype html><html><head></head><body>${html}</body></html>`;
  return loadLinkedom().parseHTML(whole).document as DomDocument;
}

export function isElement(node: DomNode): node is DomElement {
  return node.nodeType === ELEMENT_NODE;
}

/** An element's text with runs of whitespace collapsed to one space, trimmed. */
export function collapsedText(node: DomNode): string {
  return (node.textContent ?? '').replace(/\s+/g, ' ').trim();
}

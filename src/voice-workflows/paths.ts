/**
 * Addresses into node results and the input, shared by templates and condition expressions.
 * Workflow-safe: pure functions, no Node.js APIs (this module runs inside the Temporal sandbox).
 */

/** A node id: letters, digits, `_` and `-`. */
export const NODE_ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

export type PathSegment = string | number;

/** A reference: `input.<path>` or `<nodeId>.result.<path>`. */
export type Reference =
  | { kind: 'input'; path: PathSegment[] }
  | { kind: 'node'; nodeId: string; path: PathSegment[] };

/** What a reference reads: the execution input and each settled node's result. */
export interface Scope {
  input: unknown;
  results: Record<string, unknown>;
}

/** `a.b[0].c` → ['a', 'b', 0, 'c']; undefined when it is not a path. */
export function parsePath(text: string): PathSegment[] | undefined {
  if (text === '') return [];
  const segments: PathSegment[] = [];
  const re = /\.?([A-Za-z0-9_$-]+)|\[(\d+)\]/y;
  let at = 0;
  let first = true;
  while (at < text.length) {
    re.lastIndex = at;
    const m = re.exec(text);
    if (!m || (first && text[at] === '.')) return undefined;
    if (!first && m[1] !== undefined && text[at] !== '.') return undefined;
    segments.push(m[1] !== undefined ? (/^\d+$/.test(m[1]) ? Number(m[1]) : m[1]) : Number(m[2]));
    at = re.lastIndex;
    first = false;
  }
  return segments;
}

/** Follows `path` into `value`; a missing step gives undefined, never an exception. */
export function lookup(value: unknown, path: PathSegment[]): unknown {
  let current = value;
  for (const segment of path) {
    if (current === null || current === undefined) return undefined;
    if (Array.isArray(current)) {
      const index = typeof segment === 'number' ? segment : /^\d+$/.test(segment) ? Number(segment) : NaN;
      if (segment === 'length') current = current.length;
      else current = Number.isInteger(index) ? current[index] : undefined;
    } else if (typeof current === 'object') {
      const key = String(segment);
      current = Object.hasOwn(current, key) ? (current as Record<string, unknown>)[key] : undefined;
    } else if (typeof current === 'string' && segment === 'length') {
      current = current.length;
    } else {
      return undefined;
    }
  }
  return current;
}

export function resolveReference(ref: Reference, scope: Scope): unknown {
  if (ref.kind === 'input') return lookup(scope.input, ref.path);
  if (!Object.hasOwn(scope.results, ref.nodeId)) return undefined;
  return lookup(scope.results[ref.nodeId], ref.path);
}

export function describeReference(ref: Reference): string {
  const tail = ref.path.map((s) => (typeof s === 'number' ? `[${s}]` : `.${s}`)).join('');
  return ref.kind === 'input' ? `input${tail}` : `${ref.nodeId}.result${tail}`;
}

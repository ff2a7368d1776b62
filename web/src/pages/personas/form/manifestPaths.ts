/**
 * Reading and writing a manifest draft by dotted path (`conversation.model.temperature`). A draft
 * typed in the JSON tab may hold anything, so reads are defensive: a value of the wrong type reads
 * as absent, and the form shows the field empty while the server's refusal names it.
 */
export type Draft = Record<string, unknown>;

const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

export function getIn(draft: Draft, path: string): unknown {
  let node: unknown = draft;
  for (const part of path.split('.')) {
    if (!isObject(node)) return undefined;
    node = node[part];
  }
  return node;
}

/** A copy of the draft with the value at path set; `undefined` (or an empty list) removes the key. */
export function setIn(draft: Draft, path: string, value: unknown): Draft {
  const [head, ...rest] = path.split('.');
  const next: Draft = { ...draft };
  if (rest.length > 0) {
    const child = isObject(draft[head]) ? (draft[head] as Draft) : {};
    next[head] = setIn(child, rest.join('.'), value);
  } else if (value === undefined || (Array.isArray(value) && value.length === 0)) {
    delete next[head];
  } else {
    next[head] = value;
  }
  return next;
}

export const asText = (value: unknown): string => (typeof value === 'string' ? value : '');
export const asNumber = (value: unknown): number | undefined =>
  typeof value === 'number' && Number.isFinite(value) ? value : undefined;
export const asTextList = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];

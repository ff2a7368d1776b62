import type { PatchOperation } from './usePersonaVersions';

/** A JSON Pointer's segments (RFC 6901: `~1` is `/`, `~0` is `~`). */
function pointerSegments(pointer: string): string[] {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** A JSON Pointer as a manifest path is written in the docs: `conversation.rules[2]`, `(whole manifest)` for the root. */
export function pathText(pointer: string): string {
  const segments = pointerSegments(pointer);
  if (segments.length === 0) return '(whole manifest)';
  return segments.reduce(
    (text, s, i) => (/^\d+$/.test(s) ? `${text}[${s}]` : i === 0 ? s : `${text}.${s}`),
    '',
  );
}

/** The value at `pointer` in `document`, or undefined when there is none. */
export function valueAt(document: unknown, pointer: string): unknown {
  let node: unknown = document;
  for (const segment of pointerSegments(pointer)) {
    if (node === null || typeof node !== 'object' || !Object.hasOwn(node, segment)) return undefined;
    node = (node as Record<string, unknown>)[segment];
  }
  return node;
}

/** A value as one short line of JSON ('—' for none). */
export function valueText(value: unknown): string {
  return value === undefined ? '—' : JSON.stringify(value);
}

/** What an operation did, in words. */
export const OP_WORDS: Record<PatchOperation['op'], string> = {
  add: 'added',
  remove: 'removed',
  replace: 'changed',
  move: 'moved',
  copy: 'copied',
  test: 'checked',
};

/** One row of a readable diff: what changed where, the value before (in `from`) and after. */
export interface ChangeRow {
  /** Its place in the patch. */
  index: number;
  op: PatchOperation['op'];
  path: string;
  before: string;
  after: string;
}

/** The patch from `fromManifest` as rows: each operation's path, and its old and new values. */
export function changeRows(patch: readonly PatchOperation[], fromManifest: unknown): ChangeRow[] {
  return patch.map((o, index) => {
    const source = o.op === 'move' || o.op === 'copy' ? (o.from ?? '') : o.path;
    const before = o.op === 'add' ? undefined : valueAt(fromManifest, source);
    const after = o.op === 'remove' ? undefined : o.op === 'move' || o.op === 'copy' ? before : o.value;
    return { index, op: o.op, path: pathText(o.path), before: valueText(before), after: valueText(after) };
  });
}

import type { z } from 'zod';
import { validationFailed } from './errors';

type Location = 'body' | 'query' | 'params' | 'headers';

/** Turns zod issues into `<field>: <problem>` lines; unknown keys are named one by one. */
export function describeIssues(issues: z.core.$ZodIssue[], location: Location): string[] {
  const lines: string[] = [];
  for (const issue of issues) {
    const base = issue.path.map(String).join('.');
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) lines.push(`${base ? `${base}.` : ''}${key}: unknown field`);
      continue;
    }
    const field = base || (location === 'body' ? 'body' : location);
    lines.push(`${field}: ${issue.message}`);
  }
  return lines;
}

/** The same lines for a value nested at `prefix` (e.g. `config`, `nodes[2].config`). */
export function describeIssuesUnder(issues: z.core.$ZodIssue[], prefix: string): string[] {
  return describeIssues(issues, 'body').map((line) =>
    line.startsWith('body:') ? `${prefix}${line.slice(4)}` : `${prefix}.${line}`,
  );
}

/** At most this many NUL problems are listed (a body can hold very many strings). */
const MAX_NUL_PROBLEMS = 20;

/**
 * `<field>: must not contain NUL characters` for every string (and field name) in `value` holding
 * U+0000, and `<field>: must be well-formed Unicode` for one holding an unpaired surrogate (JSON's
 * `"\ud800"`): PostgreSQL text and jsonb can store neither (jsonb refuses the escape, text gets a
 * replacement character). Fields are named as in `describeIssues`. Iterative, so no input can
 * overflow the stack.
 */
export function nulProblems(value: unknown, location: Location): string[] {
  const problems: string[] = [];
  const pending: Array<{ value: unknown; path: string }> = [{ value, path: '' }];
  const name = (path: string) => path || location;
  while (pending.length > 0 && problems.length < MAX_NUL_PROBLEMS) {
    const { value: current, path } = pending.pop() as { value: unknown; path: string };
    if (typeof current === 'string') {
      if (current.includes('\u0000')) problems.push(`${name(path)}: must not contain NUL characters`);
      else if (!isWellFormed(current)) problems.push(`${name(path)}: must be well-formed Unicode`);
    } else if (current !== null && typeof current === 'object') {
      const entries = Array.isArray(current)
        ? current.map((item, index) => [String(index), item] as const)
        : Object.entries(current);
      for (let i = entries.length - 1; i >= 0; i--) {
        const [key, item] = entries[i];
        if (key.includes('\u0000') || !isWellFormed(key)) {
          const what = key.includes('\u0000') ? 'contain NUL characters' : 'hold unpaired surrogates';
          problems.push(`${name(path)}: field names must not ${what}`);
          continue;
        }
        pending.push({ value: item, path: path ? `${path}.${key}` : key });
      }
    }
  }
  return problems;
}

/** No unpaired surrogate (String.prototype.isWellFormed, ES2024: not in this project's ES2023 lib types). */
const isWellFormed = (s: string) => (s as unknown as { isWellFormed(): boolean }).isWellFormed();

/** Nesting limit of JSON request bodies: deeper bodies are refused before parsing. */
export const MAX_JSON_DEPTH = 64;

/**
 * True when the UTF-8 JSON text in `bytes` opens more than `limit` nested objects or arrays. A
 * single pass over the bytes (brackets inside strings ignored), without recursion or parsing, so
 * it is safe on any input; malformed JSON is left for the parser to reject.
 */
export function jsonNestingExceeds(bytes: Uint8Array, limit = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < bytes.length; i++) {
    const c = bytes[i];
    if (inString) {
      if (c === 0x5c) {
        i++; // backslash: skip the escaped byte
      } else if (c === 0x22) {
        inString = false;
      }
    } else if (c === 0x22) {
      inString = true;
    } else if (c === 0x7b || c === 0x5b) {
      if (++depth > limit) return true;
    } else if (c === 0x7d || c === 0x5d) {
      depth--;
    }
  }
  return false;
}

/**
 * Parses `value` with `schema`, or throws a 400 VALIDATION_FAILED naming every field. Strings with
 * NUL characters are refused first, whatever the schema (path ids, query values, body fields).
 */
export function parseOrThrow<T extends z.ZodType>(
  schema: T,
  value: unknown,
  location: Location,
): z.output<T> {
  const nul = nulProblems(value, location);
  if (nul.length > 0) {
    throw validationFailed(nul, `Invalid request ${location === 'params' ? 'path' : location}: ${nul[0]}`);
  }
  const result = schema.safeParse(value);
  if (!result.success) {
    const lines = describeIssues(result.error.issues, location);
    throw validationFailed(
      lines,
      `Invalid request ${location === 'params' ? 'path' : location}: ${lines[0]}`,
    );
  }
  return result.data;
}

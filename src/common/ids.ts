import { randomBytes } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Uniformly random base62 text (rejection sampling, so no modulo bias). */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248) out += BASE62[byte % 62];
      if (out.length === length) break;
    }
  }
  return out;
}

/** Resource id prefixes of SPEC 2.1 (and a few internal ones). */
export type IdPrefix =
  | 'pub'
  | 'key'
  | 'sec'
  | 'wh'
  | 'del'
  | 'evt'
  | 'sess'
  | 'usr'
  | 'tool'
  | 'wf'
  | 'exec'
  | 'mcp'
  | 'inst'
  | 'persona'
  | 'req';

export function newId(prefix: IdPrefix, length = 24): string {
  return `${prefix}_${randomBase62(length)}`;
}

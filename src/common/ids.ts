import { createHash, randomBytes } from 'node:crypto';

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

/** Resource id prefixes (docs/api-contract.md "Ids"), and a few internal ones. */
export type IdPrefix =
  | 'pub'
  | 'key'
  | 'sec'
  | 'wh'
  | 'del'
  | 'wrc'
  | 'lsn'
  | 'evt'
  | 'sess'
  | 'ana'
  | 'usr'
  | 'tool'
  | 'wf'
  | 'exec'
  | 'mcp'
  | 'inst'
  | 'persona'
  | 'req'
  | 'oap'
  | 'oat'
  | 'act'
  | 'idk'
  | 'tsc'
  | 'testrun'
  | 'pn'
  | 'call'
  | 'prov'
  | 'cmp'
  | 'kb'
  | 'ks';

export function newId(prefix: IdPrefix, length = 24): string {
  return `${prefix}_${randomBase62(length)}`;
}

/**
 * A deterministic id from its parts (base62 of SHA-256): the same parts always give the same id, so
 * re-running a step that creates it (a dispatcher after a crash) cannot create a second one.
 */
export function derivedId(prefix: IdPrefix, ...parts: string[]): string {
  const digest = createHash('sha256').update(parts.join('\u0000')).digest();
  let n = BigInt(`0x${digest.toString('hex')}`);
  let out = '';
  for (let i = 0; i < 24; i++) {
    out += BASE62[Number(n % 62n)];
    n /= 62n;
  }
  return `${prefix}_${out}`;
}

import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Config } from '../config/env';
import type { Encryptor } from './encryption';

/** The HKDF purpose of the link key derived from the encryption key when LINK_SIGNING_KEY is unset. */
const DERIVED_KEY_PURPOSE = 'voice-platform signed links v1';
/** Names the signed text's layout: a later layout signs under another name, so no signature means two things. */
const FORMAT = 'v1';

/** What a signed link opens: one resource (`<kind>:<id>`) of one account. */
export interface LinkTarget {
  resource: string;
  accountId: string;
}

/** A link's signature checked: good and in time, good but past its expiry, or not this link's. */
export type LinkCheck = 'valid' | 'expired' | 'invalid';

/**
 * Signs and checks links that open a resource without an API key (docs/sessions.md "End-of-call
 * links"): the lowercase hex HMAC-SHA256, under the platform's link key, of the resource, its
 * account and the link's expiry (unix seconds). Changing any of them, or the signature, makes
 * another link, which does not check. Comparisons are constant-time.
 */
export class LinkSigner {
  constructor(
    private readonly key: Buffer,
    /** How long a link lasts from when it is signed. */
    readonly ttlSeconds: number,
  ) {}

  /** The expiry (unix seconds) of a link signed at `now` (ms). */
  expiresAt(now = Date.now()): number {
    return Math.floor(now / 1000) + this.ttlSeconds;
  }

  sign(target: LinkTarget, expires: number): string {
    return createHmac('sha256', this.key)
      .update(`${FORMAT}\n${target.resource}\n${target.accountId}\n${expires}`)
      .digest('hex');
  }

  /** The query of a link to `target` that expires at `expires`: `expires=…&signature=…`. */
  query(target: LinkTarget, expires: number): string {
    return new URLSearchParams({
      expires: String(expires),
      signature: this.sign(target, expires),
    }).toString();
  }

  /**
   * Checks a link's signature in constant time, then its expiry: an expired link is `expired` only
   * when its signature is good (a forged one is `invalid` whatever its expiry).
   */
  check(target: LinkTarget, expires: number, signature: string, now = Date.now()): LinkCheck {
    const expected = Buffer.from(this.sign(target, expires), 'utf8');
    const given = Buffer.from(signature, 'utf8');
    // the expected length is public (64 hex digits): only equal lengths are compared, in constant time
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return 'invalid';
    return expires * 1000 <= now ? 'expired' : 'valid';
  }
}

/**
 * The platform's link signer: LINK_SIGNING_KEY when set, else a key derived from the encryption key
 * (HKDF), which production requires; links last LINK_TTL_S.
 */
export function linkSigner(deps: { config: Pick<Config, 'links'>; encryptor: Encryptor }): LinkSigner {
  const { signingKey, ttlSeconds } = deps.config.links;
  const key = signingKey ? Buffer.from(signingKey, 'utf8') : deps.encryptor.derivedKey(DERIVED_KEY_PURPOSE);
  return new LinkSigner(key, ttlSeconds);
}

/** Where the outside world reaches the API (PUBLIC_URL, else this port on localhost): a link's origin. */
export function linkBaseUrl(config: Pick<Config, 'publicUrl' | 'port'>): string {
  return (config.publicUrl ?? `http://localhost:${config.port}`).replace(/\/+$/, '');
}

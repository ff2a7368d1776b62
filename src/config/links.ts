import { z } from 'zod';

/** The shortest `LINK_SIGNING_KEY` accepted: a short key could be guessed from the links it signed. */
export const MIN_LINK_SIGNING_KEY_LENGTH = 32;

/** The variables, for the environment schema (docs/configuration.md "Signed links"). */
export const linksEnv = {
  LINK_SIGNING_KEY: z
    .string()
    .optional()
    .transform((v) => (v === undefined || v.trim() === '' ? undefined : v.trim()))
    .pipe(
      z
        .string()
        .min(
          MIN_LINK_SIGNING_KEY_LENGTH,
          `must be at least ${MIN_LINK_SIGNING_KEY_LENGTH} characters (e.g. openssl rand -hex 32)`,
        )
        .optional(),
    ),
  LINK_TTL_S: z.coerce.number().int().min(60).max(31_536_000).default(604_800),
};

/**
 * Signed links (docs/sessions.md "End-of-call links"): what an end-of-call event links to (the
 * transcript, the call's recording) opens without an API key for `ttlSeconds` (default 7 days).
 * `signingKey` is `LINK_SIGNING_KEY`; unset, the key is derived from the encryption key
 * (src/crypto/signed-links.ts), so production, which requires ENCRYPTION_KEY, always has one.
 */
export interface LinksConfig {
  signingKey?: string;
  ttlSeconds: number;
}

export function linksConfig(e: { LINK_SIGNING_KEY?: string; LINK_TTL_S: number }): LinksConfig {
  return { signingKey: e.LINK_SIGNING_KEY, ttlSeconds: e.LINK_TTL_S };
}

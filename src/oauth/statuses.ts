/** The OAuth token status union, declared once: the TS types and the zod enum derive from it. */

/** A token's status as answered: `expired` is computed from `expiresAt`, never stored. */
export const TOKEN_STATUSES = ['active', 'expired', 'revoked'] as const;
export type TokenStatus = (typeof TOKEN_STATUSES)[number];
/** What the token row stores. */
export type StoredTokenStatus = Exclude<TokenStatus, 'expired'>;

/** What a marketplace item is. */
export const ITEM_TYPES = ['tool', 'agent'] as const;
export type ItemType = (typeof ITEM_TYPES)[number];

/**
 * A marketplace item's status:
 * - `pending_review`: no version approved yet, the latest is under review;
 * - `approved`: a version is live (a newer one may be under review meanwhile);
 * - `rejected`: no version approved, the latest was rejected (submit a greater version with PUT);
 * - `removal_scheduled`: the publisher removed it; out of browse, no new installs, existing
 *   installations keep working until the grace period ends (restore undoes it);
 * - `removed`: the grace period ended; installations are `removed` and running it answers 410.
 */
export const ITEM_STATUSES = [
  'pending_review',
  'approved',
  'rejected',
  'removal_scheduled',
  'removed',
] as const;
export type ItemStatus = (typeof ITEM_STATUSES)[number];

/**
 * A submitted version's status: under review, approved, rejected, `superseded` (an approved version
 * replaced by a newer approved one) or `withdrawn` (replaced by a newer submission, or the item was
 * removed, before any decision).
 */
export const VERSION_STATUSES = [
  'pending_review',
  'approved',
  'rejected',
  'superseded',
  'withdrawn',
] as const;
export type VersionStatus = (typeof VERSION_STATUSES)[number];

/** `active`; `uninstalled` by the user; `removed` when the item's removal grace period ended. */
export const INSTALLATION_STATUSES = ['active', 'uninstalled', 'removed'] as const;
export type InstallationStatus = (typeof INSTALLATION_STATUSES)[number];

/** `x-subscription-tier` values. */
export const TIERS = ['free', 'pro', 'enterprise'] as const;
export type Tier = (typeof TIERS)[number];

/** What a metering record counts: one `POST /execute` run, or one turn of an installed agent's voice session. */
export const METERING_KINDS = ['execution', 'agent_turn'] as const;
export type MeteringKind = (typeof METERING_KINDS)[number];

/** `trustLevel`: `verified` when an operator verified the publisher, else `community`. */
export const TRUST_LEVELS = ['community', 'verified'] as const;
export type TrustLevel = (typeof TRUST_LEVELS)[number];

/** Removal rows: waiting out the grace period, undone by restore, or completed. */
export const REMOVAL_STATUSES = ['scheduled', 'restored', 'completed'] as const;
export type RemovalStatus = (typeof REMOVAL_STATUSES)[number];

/** Each status union of the webhooks area, declared once: the TS types and the zod enums derive from these. */

/** A webhook's status: `disabled` when not enabled, `failing` after a delivery exhausted its attempts. */
export const WEBHOOK_STATUSES = ['active', 'failing', 'disabled'] as const;
export type WebhookStatus = (typeof WEBHOOK_STATUSES)[number];

/** A delivery's status. */
export const DELIVERY_STATUSES = ['delivered', 'failed', 'pending'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** Why a webhook is disabled: by PUT `enabled: false`, after failing too long, or a receiver's 410. */
export const DISABLED_REASONS = ['manual', 'failing', 'gone'] as const;
export type DisabledReason = (typeof DISABLED_REASONS)[number];

/** How deliveries are signed: HMAC (`v1`, the default) or Ed25519 (`v1a`). */
export const SIGNING_ALGORITHMS = ['hmac-sha256', 'ed25519'] as const;
export type SigningAlgorithm = (typeof SIGNING_ALGORITHMS)[number];

/** A recovery's status: `running` while it queues re-sends, then `completed` or `canceled`. */
export const RECOVERY_STATUSES = ['running', 'completed', 'canceled'] as const;
export type RecoveryStatus = (typeof RECOVERY_STATUSES)[number];

/** A webhook's kind: an `endpoint` (its URL), or the account's `listener` (a connected `vp listen`). */
export const WEBHOOK_KINDS = ['endpoint', 'listener'] as const;
export type WebhookKind = (typeof WEBHOOK_KINDS)[number];

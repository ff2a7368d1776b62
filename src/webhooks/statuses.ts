/** Each status union of the webhooks area, declared once: the TS types and the zod enums derive from these. */

/** A webhook's status: `disabled` when not enabled, `failing` after a delivery exhausted its attempts. */
export const WEBHOOK_STATUSES = ['active', 'failing', 'disabled'] as const;
export type WebhookStatus = (typeof WEBHOOK_STATUSES)[number];

/** A delivery's status. */
export const DELIVERY_STATUSES = ['delivered', 'failed', 'pending'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

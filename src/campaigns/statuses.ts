/**
 * The statuses and outcomes of campaigns (docs/campaigns.md), each union once. Pure: the campaign's
 * workflow imports it.
 */

/** A campaign's status: `running` and `paused` until its workflow ends it `completed` or `canceled`. */
export const CAMPAIGN_STATUSES = ['running', 'paused', 'completed', 'canceled'] as const;
export type CampaignStatus = (typeof CAMPAIGN_STATUSES)[number];

/**
 * A contact's status: `pending` (not called yet), `calling` (an attempt's call is under way),
 * `retry` (waiting for its next attempt), `done` (its outcome is final), `canceled` (the campaign
 * was canceled before it was done).
 */
export const CONTACT_STATUSES = ['pending', 'calling', 'retry', 'done', 'canceled'] as const;
export type ContactStatus = (typeof CONTACT_STATUSES)[number];

/** How one call to a contact came out. */
export const CALL_OUTCOMES = ['answered', 'busy', 'no-answer', 'voicemail', 'failed'] as const;
export type CallOutcome = (typeof CALL_OUTCOMES)[number];

/** What an operator reviews: a persona (console) or a marketplace item. */
export const REVIEW_KINDS = ['persona', 'marketplace_item'] as const;
export type ReviewKind = (typeof REVIEW_KINDS)[number];

/** A review waits (`pending`) until an operator decides, or the submitter withdraws it. */
export const REVIEW_STATUSES = ['pending', 'approved', 'rejected', 'withdrawn'] as const;
export type ReviewStatus = (typeof REVIEW_STATUSES)[number];

/** An operator's decision. */
export const REVIEW_DECISIONS = ['approve', 'reject'] as const;
export type ReviewDecision = (typeof REVIEW_DECISIONS)[number];

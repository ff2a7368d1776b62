import type { Config } from '../config/env';

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * `days` business days (Monday to Friday, UTC) after `from`, at the same time of day. A submission
 * made on a weekend counts from the next Monday's start.
 */
export function addBusinessDays(from: Date, days: number): Date {
  let at = new Date(from.getTime());
  const weekend = (d: Date) => d.getUTCDay() === 0 || d.getUTCDay() === 6;
  if (weekend(at)) {
    at = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate()));
    while (weekend(at)) at = new Date(at.getTime() + DAY_MS);
  }
  let left = days;
  while (left > 0) {
    at = new Date(at.getTime() + DAY_MS);
    if (!weekend(at)) left--;
  }
  return at;
}

/** When a review submitted at `submittedAt` is due (REVIEW_SLA_BUSINESS_DAYS, or REVIEW_SLA_SECONDS). */
export function reviewDueBy(config: Pick<Config, 'reviews'>, submittedAt: Date): Date {
  const { slaSeconds, slaBusinessDays } = config.reviews;
  return slaSeconds !== undefined
    ? new Date(submittedAt.getTime() + slaSeconds * 1000)
    : addBusinessDays(submittedAt, slaBusinessDays);
}

import { parsePhoneNumberFromString } from 'libphonenumber-js/max';
import type { Plan } from '../../config/env';
import { planLimitReached, validationFailed } from '../../http/errors';

/**
 * Each plan's caps on outbound calls (null = none), beside the plan's other limits (webhooks, MCP
 * servers, live streams): calls not yet ended at once, and calls placed in the last 24 hours.
 */
export const CALL_LIMITS: Record<Plan, { concurrent: number | null; perDay: number | null }> = {
  free: { concurrent: 2, perDay: 20 },
  pro: { concurrent: 20, perDay: 2000 },
  enterprise: { concurrent: null, perDay: null },
};

/**
 * The countries an account may call, by account id: none listed means the calling number's own
 * country only. A constant for now (no API sets it); an account allowed more is added here.
 */
export const ALLOWED_DESTINATION_COUNTRIES: Readonly<Record<string, readonly string[]>> = {};

/** Number types that are toll-fraud targets and never called (libphonenumber-js's types). */
const REFUSED_TYPES = new Set(['PREMIUM_RATE', 'SHARED_COST']);

/**
 * Refuses a destination outside the countries the account allows, or a premium-rate or shared-cost
 * number (a 400 naming why). Short and emergency numbers never get here: they are not valid E.164
 * numbers, which the body's schema already refused.
 */
export function checkDestination(accountId: string, from: string, to: string): void {
  const destination = parsePhoneNumberFromString(to);
  if (!destination?.isValid()) throw validationFailed(['to: is not a valid phone number of any country']);
  const type = destination.getType();
  if (type && REFUSED_TYPES.has(type)) {
    const kind = type === 'PREMIUM_RATE' ? 'premium-rate' : 'shared-cost';
    throw validationFailed([`to: is a ${kind} number, which calls are not placed to`]);
  }
  const home = parsePhoneNumberFromString(from)?.country;
  const allowed = ALLOWED_DESTINATION_COUNTRIES[accountId] ?? (home ? [home] : []);
  if (!destination.country || !allowed.includes(destination.country)) {
    throw validationFailed([
      `to: calls to ${destination.country ?? 'this number'} are not allowed for this account (allowed: ${allowed.join(', ') || 'none'})`,
    ]);
  }
}

/** Refuses a call past the plan's caps (403 PLAN_LIMIT_REACHED), given the account's counts. */
export function checkCallCaps(plan: Plan, counts: { unfinished: number; lastDay: number }): void {
  const { concurrent, perDay } = CALL_LIMITS[plan];
  if (concurrent !== null && counts.unfinished >= concurrent) {
    throw planLimitReached(
      `The ${plan} plan allows ${concurrent} calls at once; wait for one to end or upgrade`,
    );
  }
  if (perDay !== null && counts.lastDay >= perDay) {
    throw planLimitReached(`The ${plan} plan allows ${perDay} calls a day; try again later or upgrade`);
  }
}

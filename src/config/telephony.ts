import { z } from 'zod';

/** The variables, for the environment schema (docs/configuration.md "Phone calls"). */
export const telephonyEnv = {
  TWILIO_API_BASE_URL: z.url().default('https://api.twilio.com'),
  TELNYX_API_BASE_URL: z.url().default('https://api.telnyx.com'),
  CARRIER_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(10_000),
  CALL_UNCONFIRMED_WAIT_S: z.coerce.number().int().min(1).max(3600).default(60),
};

/**
 * Phone calls (docs/telephony.md "Calls"): the carriers' REST API base URLs (a test points them at
 * a local carrier), the deadline of one request to them, and how long a call whose placing had an
 * unknown outcome waits for the carrier's first status callback before it ends `failed`.
 */
export interface TelephonyConfig {
  twilioApiBaseUrl: string;
  telnyxApiBaseUrl: string;
  carrierTimeoutMs: number;
  unconfirmedCallWaitS: number;
}

type TelephonyEnv = { [K in keyof typeof telephonyEnv]: z.infer<(typeof telephonyEnv)[K]> };

export function telephonyConfig(e: TelephonyEnv): TelephonyConfig {
  return {
    twilioApiBaseUrl: e.TWILIO_API_BASE_URL.replace(/\/+$/, ''),
    telnyxApiBaseUrl: e.TELNYX_API_BASE_URL.replace(/\/+$/, ''),
    carrierTimeoutMs: e.CARRIER_TIMEOUT_MS,
    unconfirmedCallWaitS: e.CALL_UNCONFIRMED_WAIT_S,
  };
}

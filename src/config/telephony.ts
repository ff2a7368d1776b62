import { z } from 'zod';

/** The variables, for the environment schema (docs/configuration.md "Phone calls"). */
export const telephonyEnv = {
  TWILIO_API_BASE_URL: z.url().default('https://api.twilio.com'),
  TELNYX_API_BASE_URL: z.url().default('https://api.telnyx.com'),
  CARRIER_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(10_000),
  CALL_UNCONFIRMED_WAIT_S: z.coerce.number().int().min(1).max(3600).default(60),
  INTERRUPT_MIN_SPEECH_MS: z.coerce.number().int().min(60).max(3000).default(250),
  CAMPAIGN_MINUTE_MS: z.coerce.number().int().min(1).max(60_000).default(60_000),
  CAMPAIGN_EVENTS_PER_RUN: z.coerce.number().int().min(20).max(9_000).default(4_000),
};

/**
 * Phone calls (docs/telephony.md "Calls"): the carriers' REST API base URLs (a test points them at
 * a local carrier), the deadline of one request to them, and how long a call whose placing had an
 * unknown outcome waits for the carrier's first status callback before it ends `failed`; and how
 * long caller speech over the agent must last to interrupt it on a call (the agent's own voice
 * coming back down the line never counts, docs/telephony.md "Line noise and echo").
 */
export interface TelephonyConfig {
  twilioApiBaseUrl: string;
  telnyxApiBaseUrl: string;
  carrierTimeoutMs: number;
  unconfirmedCallWaitS: number;
  interruptMinSpeechMs: number;
  /**
   * How many real ms a minute of a campaign's clock lasts (docs/campaigns.md "The campaign clock"):
   * its calling hours and retry delays. 60 000 (real time) except in tests, which shrink a day to seconds.
   */
  campaignMinuteMs: number;
  /**
   * How many events a campaign's workflow run holds before it continues as new (docs/campaigns.md
   * "Continue-as-new"): 4 000 except in tests, which roll over every few calls (40).
   */
  campaignEventsPerRun: number;
}

type TelephonyEnv = { [K in keyof typeof telephonyEnv]: z.infer<(typeof telephonyEnv)[K]> };

export function telephonyConfig(e: TelephonyEnv): TelephonyConfig {
  return {
    twilioApiBaseUrl: e.TWILIO_API_BASE_URL.replace(/\/+$/, ''),
    telnyxApiBaseUrl: e.TELNYX_API_BASE_URL.replace(/\/+$/, ''),
    carrierTimeoutMs: e.CARRIER_TIMEOUT_MS,
    unconfirmedCallWaitS: e.CALL_UNCONFIRMED_WAIT_S,
    interruptMinSpeechMs: e.INTERRUPT_MIN_SPEECH_MS,
    campaignMinuteMs: e.CAMPAIGN_MINUTE_MS,
    campaignEventsPerRun: e.CAMPAIGN_EVENTS_PER_RUN,
  };
}

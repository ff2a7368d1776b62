import { z } from 'zod';

/** The variables, for the environment schema (docs/configuration.md, docs/webhooks.md). */
export const webhooksEnv = {
  WEBHOOK_RETRY_DELAYS: z
    .string()
    .default('0,60,300,1800,7200')
    .transform((v) => v.split(',').map((s) => Number(s.trim())))
    .pipe(z.array(z.number().int().min(0)).min(1)),
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(300_000).default(30_000),
  // fractional values allowed, so tests and demos can use seconds
  WEBHOOK_DISABLE_AFTER_DAYS: z.coerce.number().positive().max(365).default(5),
  WEBHOOK_DISABLE_MIN_SPAN_HOURS: z.coerce.number().min(0).max(8760).default(12),
  WEBHOOK_RECOVERY_WINDOW_DAYS: z.coerce.number().positive().max(365).default(14),
};

/**
 * Webhook deliveries: the delay before each attempt and each attempt's timeout; an endpoint whose
 * attempts all failed for `disableAfterMs`, spread over at least `disableMinSpanMs`, is disabled
 * (docs/webhooks.md "Disabling"); POST /webhooks/:id/recover reaches back `recoveryWindowMs`.
 */
export interface WebhooksConfig {
  retryDelaysSeconds: number[];
  timeoutMs: number;
  disableAfterMs: number;
  disableMinSpanMs: number;
  recoveryWindowMs: number;
}

export function webhooksConfig(e: {
  WEBHOOK_RETRY_DELAYS: number[];
  WEBHOOK_TIMEOUT_MS: number;
  WEBHOOK_DISABLE_AFTER_DAYS: number;
  WEBHOOK_DISABLE_MIN_SPAN_HOURS: number;
  WEBHOOK_RECOVERY_WINDOW_DAYS: number;
}): WebhooksConfig {
  return {
    retryDelaysSeconds: e.WEBHOOK_RETRY_DELAYS,
    timeoutMs: e.WEBHOOK_TIMEOUT_MS,
    disableAfterMs: Math.round(e.WEBHOOK_DISABLE_AFTER_DAYS * 86_400_000),
    disableMinSpanMs: Math.round(e.WEBHOOK_DISABLE_MIN_SPAN_HOURS * 3_600_000),
    recoveryWindowMs: Math.round(e.WEBHOOK_RECOVERY_WINDOW_DAYS * 86_400_000),
  };
}

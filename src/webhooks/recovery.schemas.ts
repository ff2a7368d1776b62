import { z } from 'zod';
import { envelopeOf, timestamp } from '../http/envelope';
import { RECOVERY_STATUSES } from './statuses';

const instant = (description: string) =>
  z.iso.datetime({ offset: true, error: 'must be an ISO 8601 date-time' }).meta({ description });

export const RecoverWebhookBody = z
  .strictObject({
    since: instant('Re-send the events from this time on (within WEBHOOK_RECOVERY_WINDOW_DAYS, default 14)'),
    until: instant('Up to this time (default now)').optional(),
  })
  .meta({ id: 'RecoverWebhookRequest' });
export type RecoverWebhookInput = z.infer<typeof RecoverWebhookBody>;

export const RecoveryParams = z.object({ id: z.string().max(64), recoveryId: z.string().max(64) });

export const WebhookRecoveryView = z
  .object({
    id: z.string().meta({ example: 'wrc_…' }),
    webhookId: z.string(),
    status: z.enum(RECOVERY_STATUSES).meta({
      description:
        '`running` while it queues re-sends; `completed` once every missed event is queued; `canceled` when the webhook was disabled meanwhile',
    }),
    since: timestamp(),
    until: timestamp(),
    total: z.number().int().meta({ description: 'Missed events queued for re-sending so far' }),
    sent: z.number().int().meta({ description: 'Of those, delivered' }),
    failed: z.number().int().meta({ description: 'Of those, failed after every attempt' }),
    pending: z.number().int().meta({ description: 'Of those, still being attempted' }),
    error: z.string().optional().meta({ description: 'Why a canceled recovery stopped' }),
    createdAt: timestamp(),
    completedAt: timestamp().nullable(),
  })
  .meta({ id: 'WebhookRecovery' });

export const WebhookRecoveryEnvelope = envelopeOf(WebhookRecoveryView);

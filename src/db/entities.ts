import { AccountSchema } from '../accounts/account.entity';
import { EventSchema } from '../events/event.entity';
import { ApiKeySchema } from '../keys/api-key.entity';
import { SecretSchema } from '../secrets/secret.entity';
import { DeliveryAttemptSchema, DeliverySchema } from '../webhooks/delivery.entity';
import { WebhookSchema } from '../webhooks/webhook.entity';

/** Every entity of the service; migrations are written against this list. */
export const entities = [
  AccountSchema,
  ApiKeySchema,
  SecretSchema,
  WebhookSchema,
  EventSchema,
  DeliverySchema,
  DeliveryAttemptSchema,
];

export { webhookPreviousSecretAad, webhookSecretAad, webhookSigningKeyAad } from './webhook.entity';

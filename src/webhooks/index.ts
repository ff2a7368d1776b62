export { webhookPreviousSecretAad, webhookSecretAad } from './webhook.entity';

export { LISTEN_PATH, type WebhookListenStreams, webhookListenStreams } from './listen-server';
export { webhookPreviousSecretAad, webhookSecretAad, webhookSigningKeyAad } from './webhook.entity';

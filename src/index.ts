/**
 * The package's public helpers for receivers of the platform's webhooks:
 *
 *   import { verifyWebhookSignature } from 'voice-agent-platform';
 *   verifyWebhookSignature(rawBody, req.headers['x-service-signature'], process.env.WEBHOOK_SECRET);
 */
export {
  DEFAULT_TOLERANCE_SECONDS,
  parseSignatureHeader,
  verifyEd25519WebhookSignature,
  verifyWebhookSignature,
} from './webhooks/signature';

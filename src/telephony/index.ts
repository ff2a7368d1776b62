/**
 * Telephony (issue 39): phone numbers on personas, and the carriers' calls. Other areas and the
 * composition root reach it only through this file.
 */

export { CALL_LIMITS, checkDestination } from './calls/call-limits';
export { callSessionDriver } from './calls/call-sessions';
export type { CallSessionDriver } from './calls/call-types';
export { mountCallRoutes } from './calls/calls.routes';
export { createCallOutboxHandler } from './calls/outbox';
export { insertQueuedCalls, type QueuedCall } from './calls/queued-calls';
export { readStreamToken, takeStreamToken } from './calls/stream-token';
export { TELEPHONY_ROOT, telephonyWebhooks } from './calls/telephony-webhooks.routes';
export { isPhoneMediaUpgrade, phoneMediaStreams } from './media/media-streams';
export {
  type CarrierCredentials,
  openCredentials,
} from './phone-numbers/carrier-credentials';
export {
  CARRIERS,
  type Carrier,
  PhoneNumber,
  PhoneNumberSchema,
  phoneNumberCredentialsAad,
} from './phone-numbers/phone-number.entity';
export { mountPhoneNumberRoutes } from './phone-numbers/phone-numbers.routes';
export {
  findPhoneNumber,
  inboundUrlOf,
  publicBaseUrl,
  statusCallbackUrlOf,
} from './phone-numbers/phone-numbers.service';
export { mountRecordingLinkRoute } from './recordings/recording-link.routes';

/**
 * @voice-platform/sdk: the typed client of the Voice Agent Developer Platform API.
 *
 *   const client = new VoicePlatform({ apiKey: process.env.VOICE_API_KEY, baseUrl: 'https://voice.example.com' });
 *   const webhook = await client.webhooks.create({ name: 'orders', url: 'https://example.com/hook', events: ['session.ended'] });
 */
export { type ClientOptions, type Resources, VoicePlatform } from './client';
export * from './errors';
export type { BodyOf, ItemOf, OperationId, QueryOf, ResultOf } from './operation-types';
export { OPERATIONS } from './operations';
export { type Page, PagePromise, type Pagination } from './pagination';
export type { components, operations, paths, webhooks } from './schema';
export {
  SessionStream,
  type StreamAudioChunk,
  type StreamEvent,
  type StreamEventOf,
  type StreamServerMessage,
} from './stream';
export type { RequestOptions } from './transport';
export {
  type UnwrapOptions,
  unwrapWebhook,
  type WebhookEvent,
  type WebhookEventOf,
  type WebhookEventType,
  type WebhookHeaders,
} from './webhook-events';

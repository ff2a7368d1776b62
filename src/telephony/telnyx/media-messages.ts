/**
 * Telnyx's media streaming WebSocket messages (developers.telnyx.com, "Stream call media over
 * WebSocket"), for a bidirectional RTP stream in PCMU (`stream_bidirectional_mode: rtp`,
 * `stream_bidirectional_codec: PCMU`). One JSON object a text frame, `event` naming it. Telnyx sends
 * `connected`, `start`, `media`, `dtmf`, `mark`, `error` and `stop`; the platform sends `media`,
 * `mark` and `clear`. Counters Telnyx sends as strings (`sequence_number`, `chunk`, `timestamp`)
 * stay strings. Audio is base64 μ-law (G.711 PCMU), 8 kHz, mono, RTP payload without its header,
 * both ways. Fields the platform does not read are not required. Pure: zod only, so the platform and
 * the tests' carrier double share the schemas.
 */
import { z } from 'zod';
import { type ParsedStreamMessage, parseStreamFrame } from '../carriers/stream-frames';

/** The audio format asked for and checked in `start.media_format`. */
export const TELNYX_MEDIA_FORMAT = { encoding: 'PCMU', sample_rate: 8000, channels: 1 } as const;

const counter = z.string().regex(/^\d{1,15}$/, 'must be a decimal integer in a string');
const id = z.string().min(1).max(256);

// --- Telnyx → platform

export const TelnyxConnectedMessage = z.object({
  event: z.literal('connected'),
  version: z.string().optional(),
});
export const TelnyxStartMessage = z.object({
  event: z.literal('start'),
  sequence_number: counter.optional(),
  stream_id: id,
  start: z.object({
    user_id: id.optional(),
    call_control_id: id,
    call_session_id: id.optional(),
    from: z.string().max(64).optional(),
    to: z.string().max(64).optional(),
    /** The `client_state` of the command that started the stream (base64): it carries the call token. */
    client_state: z.string().max(4096).nullable().optional(),
    custom_parameters: z.record(z.string(), z.unknown()).optional(),
    media_format: z.object({
      encoding: z.literal(TELNYX_MEDIA_FORMAT.encoding),
      sample_rate: z.literal(TELNYX_MEDIA_FORMAT.sample_rate),
      channels: z.literal(TELNYX_MEDIA_FORMAT.channels),
    }),
  }),
});
export const TelnyxMediaMessage = z.object({
  event: z.literal('media'),
  sequence_number: counter.optional(),
  stream_id: id.optional(),
  media: z.object({
    /** `inbound` is the caller; a both-tracks stream also carries `outbound`. */
    track: z.enum(['inbound', 'outbound']),
    chunk: counter.optional(),
    timestamp: counter.optional(),
    payload: z.base64(),
  }),
});
export const TelnyxDtmfMessage = z.object({
  event: z.literal('dtmf'),
  sequence_number: counter.optional(),
  stream_id: id.optional(),
  dtmf: z.object({ digit: z.string().regex(/^[0-9*#A-D]$/) }),
});
/** A mark the platform sent, sent back once the media before it has played (or on `clear`). */
export const TelnyxMarkEchoMessage = z.object({
  event: z.literal('mark'),
  sequence_number: counter.optional(),
  stream_id: id.optional(),
  mark: z.object({ name: z.string() }),
});
export const TelnyxErrorMessage = z.object({
  event: z.literal('error'),
  stream_id: id.optional(),
  payload: z.object({
    code: z.number().int().optional(),
    title: z.string().max(512).optional(),
    detail: z.string().max(2048).optional(),
  }),
});
export const TelnyxStopMessage = z.object({
  event: z.literal('stop'),
  sequence_number: counter.optional(),
  stream_id: id.optional(),
  stop: z.object({ user_id: id.optional(), call_control_id: id.optional() }).optional(),
});
export const MessageFromTelnyx = z.discriminatedUnion('event', [
  TelnyxConnectedMessage,
  TelnyxStartMessage,
  TelnyxMediaMessage,
  TelnyxDtmfMessage,
  TelnyxMarkEchoMessage,
  TelnyxErrorMessage,
  TelnyxStopMessage,
]);
export type MessageFromTelnyx = z.infer<typeof MessageFromTelnyx>;
export type MessageFromTelnyxInput = z.input<typeof MessageFromTelnyx>;
export const EVENTS_FROM_TELNYX = ['connected', 'start', 'media', 'dtmf', 'mark', 'error', 'stop'] as const;

// --- platform → Telnyx

/** Audio to play to the caller: PCMU bytes, base64 (20 ms to 30 s a message); played in order. */
export const TelnyxOutboundMedia = z.object({
  event: z.literal('media'),
  media: z.object({ payload: z.base64() }),
});
/** Asks Telnyx to send `name` back once the media sent before it has played. */
export const TelnyxOutboundMark = z.object({
  event: z.literal('mark'),
  mark: z.object({ name: z.string().min(1) }),
});
/** Stops playback and drops queued media; Telnyx sends back the queued marks. */
export const TelnyxClear = z.object({ event: z.literal('clear') });
export const MessageToTelnyx = z.discriminatedUnion('event', [
  TelnyxOutboundMedia,
  TelnyxOutboundMark,
  TelnyxClear,
]);
export type MessageToTelnyx = z.infer<typeof MessageToTelnyx>;
export const EVENTS_TO_TELNYX = ['media', 'mark', 'clear'] as const;

export const telnyxMedia = (mulaw: Uint8Array): MessageToTelnyx => ({
  event: 'media',
  media: { payload: Buffer.from(mulaw.buffer, mulaw.byteOffset, mulaw.byteLength).toString('base64') },
});
export const telnyxMark = (name: string): MessageToTelnyx => ({ event: 'mark', mark: { name } });
export const telnyxClear = (): MessageToTelnyx => ({ event: 'clear' });

/** A text frame Telnyx sent, as a typed message or the named reason it is not one. */
export const parseMessageFromTelnyx = (text: string | Buffer): ParsedStreamMessage<MessageFromTelnyx> =>
  parseStreamFrame(text, EVENTS_FROM_TELNYX, MessageFromTelnyx);

/** A text frame sent to Telnyx (what the tests' carrier double reads), as a typed message or why not. */
export const parseMessageToTelnyx = (text: string | Buffer): ParsedStreamMessage<MessageToTelnyx> =>
  parseStreamFrame(text, EVENTS_TO_TELNYX, MessageToTelnyx);

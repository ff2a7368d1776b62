/**
 * Twilio Media Streams' WebSocket messages (https://www.twilio.com/docs/voice/media-streams/websocket-messages),
 * message by message, for a bidirectional stream (`<Connect><Stream>`). Every message is a text
 * frame holding one JSON object whose `event` names it. Twilio sends `connected`, `start`, `media`,
 * `dtmf`, `mark` and `stop`; the platform sends `media`, `mark` and `clear`. Counters Twilio sends
 * as strings (`sequenceNumber`, `chunk`, `timestamp`) stay strings here, checked to be decimal
 * integers. Audio is base64 μ-law (G.711 PCMU), 8 kHz, mono, without a header, both ways. Pure: zod
 * only, so the platform and the tests' carrier double share the schemas and types.
 */
import { z } from 'zod';
import { type ParsedStreamMessage, parseStreamFrame } from '../carriers/stream-frames';

/** The only audio format Twilio streams: μ-law, 8 000 Hz, one channel (`start.mediaFormat`). */
export const TWILIO_MEDIA_FORMAT = { encoding: 'audio/x-mulaw', sampleRate: 8000, channels: 1 } as const;
/** μ-law bytes in one of Twilio's 20 ms frames (one byte a sample at 8 kHz). */
export const TWILIO_FRAME_BYTES = 160;
export const TWILIO_FRAME_MS = 20;

/** A counter Twilio sends as a string of decimal digits ("1", "160"). */
const counter = z.string().regex(/^\d{1,15}$/, 'must be a decimal integer in a string');
const sid = z.string().min(1).max(64);

// --- Twilio → platform

export const ConnectedMessage = z.object({
  event: z.literal('connected'),
  /** "Call" for a call's stream. */
  protocol: z.string(),
  /** The protocol's semantic version ("1.0.0"). */
  version: z.string(),
});
export const StartMessage = z.object({
  event: z.literal('start'),
  sequenceNumber: counter,
  start: z.object({
    streamSid: sid,
    accountSid: sid,
    callSid: sid,
    /** The media flows that follow; a bidirectional stream carries `inbound` (the caller) only. */
    tracks: z.array(z.enum(['inbound', 'outbound'])).min(1),
    /** The `<Parameter>`s of the TwiML's `<Stream>`, by name. */
    customParameters: z.record(z.string(), z.string()).default({}),
    mediaFormat: z.object({
      encoding: z.literal(TWILIO_MEDIA_FORMAT.encoding),
      sampleRate: z.literal(TWILIO_MEDIA_FORMAT.sampleRate),
      channels: z.literal(TWILIO_MEDIA_FORMAT.channels),
    }),
  }),
  streamSid: sid,
});
export const MediaMessage = z.object({
  event: z.literal('media'),
  sequenceNumber: counter,
  media: z.object({
    track: z.enum(['inbound', 'outbound']),
    /** 1, 2, …: the frame's place in its track. */
    chunk: counter,
    /** Milliseconds from the stream's start. */
    timestamp: counter,
    /** μ-law bytes, base64. */
    payload: z.base64(),
  }),
  streamSid: sid,
});
export const DtmfMessage = z.object({
  event: z.literal('dtmf'),
  sequenceNumber: counter,
  dtmf: z.object({ track: z.literal('inbound_track'), digit: z.string().regex(/^[0-9*#A-D]$/) }),
  streamSid: sid,
});
/** A mark the platform sent, echoed once the audio sent before it has played (or on `clear`). */
export const MarkEchoMessage = z.object({
  event: z.literal('mark'),
  sequenceNumber: counter,
  mark: z.object({ name: z.string() }),
  streamSid: sid,
});
export const StopMessage = z.object({
  event: z.literal('stop'),
  sequenceNumber: counter,
  stop: z.object({ accountSid: sid, callSid: sid }),
  streamSid: sid,
});
export const MessageFromTwilio = z.discriminatedUnion('event', [
  ConnectedMessage,
  StartMessage,
  MediaMessage,
  DtmfMessage,
  MarkEchoMessage,
  StopMessage,
]);
export type MessageFromTwilio = z.infer<typeof MessageFromTwilio>;
/** A message as it goes on the wire (`customParameters` may be left out). */
export type MessageFromTwilioInput = z.input<typeof MessageFromTwilio>;
export const EVENTS_FROM_TWILIO = ['connected', 'start', 'media', 'dtmf', 'mark', 'stop'] as const;

// --- platform → Twilio

/** Audio to play to the caller: μ-law bytes, base64, of any length; Twilio plays them in order. */
export const OutboundMediaMessage = z.object({
  event: z.literal('media'),
  streamSid: sid,
  media: z.object({ payload: z.base64() }),
});
/** Asks Twilio to echo `name` back once the audio sent before it has played. */
export const OutboundMarkMessage = z.object({
  event: z.literal('mark'),
  streamSid: sid,
  mark: z.object({ name: z.string().min(1) }),
});
/** Drops the audio Twilio holds unplayed; Twilio echoes every pending mark. */
export const ClearMessage = z.object({ event: z.literal('clear'), streamSid: sid });
export const MessageToTwilio = z.discriminatedUnion('event', [
  OutboundMediaMessage,
  OutboundMarkMessage,
  ClearMessage,
]);
export type MessageToTwilio = z.infer<typeof MessageToTwilio>;
export const EVENTS_TO_TWILIO = ['media', 'mark', 'clear'] as const;

/** The platform's `media` message for `mulaw` (μ-law 8 kHz bytes). */
export const outboundMedia = (streamSid: string, mulaw: Uint8Array): MessageToTwilio => ({
  event: 'media',
  streamSid,
  media: { payload: Buffer.from(mulaw.buffer, mulaw.byteOffset, mulaw.byteLength).toString('base64') },
});
export const outboundMark = (streamSid: string, name: string): MessageToTwilio => ({
  event: 'mark',
  streamSid,
  mark: { name },
});
export const clearMessage = (streamSid: string): MessageToTwilio => ({ event: 'clear', streamSid });

// --- parsing

export type {
  ParsedStreamMessage,
  StreamMessageError,
  StreamMessageErrorName,
} from '../carriers/stream-frames';

/** A text frame Twilio sent, as a typed message or the named reason it is not one. */
export const parseMessageFromTwilio = (text: string | Buffer): ParsedStreamMessage<MessageFromTwilio> =>
  parseStreamFrame(text, EVENTS_FROM_TWILIO, MessageFromTwilio);

/** A text frame sent to Twilio (what the tests' carrier double reads), as a typed message or why not. */
export const parseMessageToTwilio = (text: string | Buffer): ParsedStreamMessage<MessageToTwilio> =>
  parseStreamFrame(text, EVENTS_TO_TWILIO, MessageToTwilio);

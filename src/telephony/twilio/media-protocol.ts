import { STREAM_TOKEN_PARAMETER } from '../calls/stream-token';
import type { CarrierMediaEvent, CarrierMediaProtocol } from '../carriers/carrier';
import {
  clearMessage,
  type MessageFromTwilio,
  outboundMark,
  outboundMedia,
  parseMessageFromTwilio,
} from './media-messages';

/** A Twilio message as the call's transport acts on it. */
function eventOf(message: MessageFromTwilio): CarrierMediaEvent {
  switch (message.event) {
    case 'start':
      return {
        event: 'start',
        streamId: message.start.streamSid,
        callToken: message.start.customParameters[STREAM_TOKEN_PARAMETER] ?? '',
      };
    case 'media':
      return message.media.track === 'inbound'
        ? { event: 'media', payload: message.media.payload, timestampMs: Number(message.media.timestamp) }
        : { event: 'ignored' };
    case 'mark':
      return { event: 'mark', name: message.mark.name };
    case 'dtmf':
      return { event: 'dtmf', digit: message.dtmf.digit };
    case 'stop':
      return { event: 'stop' };
    default:
      return { event: 'ignored' };
  }
}

/**
 * Twilio's Media Streams protocol (media-messages.ts) for the call's transport: the call token is
 * the `<Parameter name="callToken">` of the TwiML's `<Stream>`, handed back in `start`'s
 * `customParameters`; every outbound message names the stream (`streamSid`).
 */
export const twilioMediaProtocol: CarrierMediaProtocol = {
  parse(frame) {
    const parsed = parseMessageFromTwilio(frame);
    return parsed.ok ? { ok: true, event: eventOf(parsed.message) } : parsed;
  },
  media: (streamId, mulaw) => JSON.stringify(outboundMedia(streamId, mulaw)),
  mark: (streamId, name) => JSON.stringify(outboundMark(streamId, name)),
  clear: (streamId) => JSON.stringify(clearMessage(streamId)),
};

import type { CarrierMediaEvent, CarrierMediaProtocol } from '../carriers/carrier';
import { callTokenOf } from './call-control';
import {
  type MessageFromTelnyx,
  parseMessageFromTelnyx,
  telnyxClear,
  telnyxMark,
  telnyxMedia,
} from './media-messages';

/** A Telnyx message as the call's transport acts on it. */
function eventOf(message: MessageFromTelnyx): CarrierMediaEvent {
  switch (message.event) {
    case 'start':
      return {
        event: 'start',
        streamId: message.stream_id,
        callToken: callTokenOf(message.start.client_state),
      };
    case 'media':
      return message.media.track === 'inbound'
        ? {
            event: 'media',
            payload: message.media.payload,
            timestampMs: message.media.timestamp === undefined ? undefined : Number(message.media.timestamp),
          }
        : { event: 'ignored' };
    case 'mark':
      return { event: 'mark', name: message.mark.name };
    case 'dtmf':
      return { event: 'dtmf', digit: message.dtmf.digit };
    case 'error':
      return {
        event: 'error',
        detail: `${message.payload.code ?? ''} ${message.payload.title ?? ''}`.trim(),
      };
    case 'stop':
      return { event: 'stop' };
    default:
      return { event: 'ignored' };
  }
}

/**
 * Telnyx's media streaming protocol (media-messages.ts) for the call's transport: the call token is
 * the `client_state` of the dial or answer command that started the stream, handed back in `start`;
 * outbound messages name no stream (the socket is the stream).
 */
export const telnyxMediaProtocol: CarrierMediaProtocol = {
  parse(frame) {
    const parsed = parseMessageFromTelnyx(frame);
    return parsed.ok ? { ok: true, event: eventOf(parsed.message) } : parsed;
  },
  media: (_streamId, mulaw) => JSON.stringify(telnyxMedia(mulaw)),
  mark: (_streamId, name) => JSON.stringify(telnyxMark(name)),
  clear: () => JSON.stringify(telnyxClear()),
};

import type { Config } from '../../config/env';
import type { TelnyxCredentialsValue } from '../phone-numbers/carrier-credentials';
import { clientStateOf, STREAM_OPTIONS, telnyxCallControl } from '../telnyx/call-control';
import { telnyxMediaProtocol } from '../telnyx/media-protocol';
import { verifyTelnyxSignature } from '../telnyx/signature';
import { type CallToPlace, type CarrierClient, CarrierRefusedError } from './carrier';

/** An incoming call to put on its media stream. */
export interface CallToAnswer {
  /** The `call_control_id` of the `call.initiated` event. */
  carrierCallId: string;
  streamUrl: string;
  callToken: string;
  /** The webhook's event id: a redelivered webhook answers with the same `command_id`, which Telnyx ignores. */
  commandId: string;
}

export interface TelnyxCarrierClient extends CarrierClient {
  /** Answers an incoming call onto its media stream (`actions/answer`). */
  answerCall(call: CallToAnswer): Promise<void>;
  /** Refuses an incoming call the number cannot take (`actions/reject`, `CALL_REJECTED`). */
  rejectCall(carrierCallId: string, commandId: string): Promise<void>;
}

/**
 * Telnyx through Call Control v2 (../telnyx/call-control.ts): a call is dialled on the number's
 * Call Control connection with its media stream asked for at once (`stream_url`, the caller's track,
 * bidirectional RTP in PCMU) and its call token as `client_state`; its events go to the number's
 * status URL naming the call. Webhooks are verified with the account's Ed25519 public key. Telnyx
 * does not sign the stream's upgrade: the call token in the stream's `start` decides (taken once).
 */
export function telnyxCarrier(
  config: Pick<Config, 'telephony' | 'outbound'>,
  credentials: TelnyxCredentialsValue,
): TelnyxCarrierClient {
  const control = telnyxCallControl(config, credentials.apiKey);
  return {
    async placeCall(call: CallToPlace) {
      const carrierCallId = await control.dial({
        connection_id: credentials.connectionId,
        to: call.to,
        from: call.from,
        webhook_url: call.statusCallbackUrl,
        webhook_url_method: 'POST',
        client_state: clientStateOf(call.callToken),
        stream_url: call.streamUrl,
        ...STREAM_OPTIONS,
      });
      return { carrierCallId };
    },
    hangUp: (carrierCallId) => control.command(carrierCallId, 'hangup'),
    // Call Control's blind transfer: the caller is put through, the media stream ends
    transfer: async (carrierCallId, { destination, callerId, warm }) => {
      if (warm) throw new CarrierRefusedError('Telnyx lines transfer cold only', 400);
      await control.command(carrierCallId, 'transfer', { to: destination, from: callerId });
    },
    answerCall: (call) =>
      control.command(call.carrierCallId, 'answer', {
        client_state: clientStateOf(call.callToken),
        command_id: call.commandId,
        stream_url: call.streamUrl,
        ...STREAM_OPTIONS,
      }),
    rejectCall: (carrierCallId, commandId) =>
      control.command(carrierCallId, 'reject', { cause: 'CALL_REJECTED', command_id: commandId }),
    verifyWebhook: ({ headers, rawBody }) => verifyTelnyxSignature(credentials.publicKey, headers, rawBody),
    verifyMediaUpgrade: () => true,
    media: telnyxMediaProtocol,
  };
}

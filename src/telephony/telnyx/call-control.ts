/**
 * Telnyx's Call Control v2 REST API (developers.telnyx.com, "Call Control"), as far as the platform
 * uses it: `POST /v2/calls` dials, `POST /v2/calls/{call_control_id}/actions/{answer,hangup,reject}`
 * command a call. Bearer auth with the account's API key; JSON both ways; every request through the
 * platform's outbound guard. A 4xx is a refusal (`CarrierRefusedError`: nothing was done); a
 * timeout, a 5xx or a broken connection an unknown outcome.
 */
import { z } from 'zod';
import type { Config } from '../../config/env';
import { OutboundError, sendOutbound } from '../../outbound/http';
import { CarrierRefusedError, CarrierUnknownOutcomeError, carrierErrorOf } from '../carriers/carrier';
import { TELNYX_MEDIA_FORMAT } from './media-messages';

/** Telnyx's answer to a command is small JSON; a dial's is a call of a few hundred bytes. */
const ANSWER_MAX_BYTES = 64 * 1024;

/** How the platform asks for a call's media stream: the caller's track, PCMU both ways, RTP back. */
export const STREAM_OPTIONS = {
  stream_track: 'inbound_track',
  stream_bidirectional_mode: 'rtp',
  stream_bidirectional_codec: TELNYX_MEDIA_FORMAT.encoding,
} as const;

/** The `client_state` carrying a call token: Telnyx wants base64, and gives it back as it was sent. */
export const clientStateOf = (callToken: string) => Buffer.from(callToken, 'utf8').toString('base64');
/** The call token in a `client_state` (empty when there is none). */
export const callTokenOf = (clientState: string | null | undefined) =>
  clientState ? Buffer.from(clientState, 'base64').toString('utf8') : '';

/** Telnyx's dial answer, as far as the platform reads it. */
const DialAnswer = z.object({ data: z.object({ call_control_id: z.string().min(1).max(256) }) });

/** The first of Telnyx's errors (`{ errors: [{ code, title, detail }] }`), else the status. */
function telnyxMessage(status: number, body: string): string {
  try {
    const [first] =
      (JSON.parse(body) as { errors?: { code?: unknown; title?: unknown; detail?: unknown }[] }).errors ?? [];
    const text = typeof first?.detail === 'string' ? first.detail : first?.title;
    if (typeof text === 'string')
      return first?.code === undefined ? text : `${text} (Telnyx error ${first.code})`;
  } catch {
    // not JSON
  }
  return `Telnyx answered ${status}`;
}

export interface TelnyxCallControl {
  /** `POST /v2/calls`: answers the new call's `call_control_id`. */
  dial(body: Record<string, unknown>): Promise<string>;
  /** `POST /v2/calls/{id}/actions/{action}`. */
  command(
    callControlId: string,
    action: 'answer' | 'hangup' | 'reject' | 'transfer',
    body?: Record<string, unknown>,
  ): Promise<void>;
}

/** Call Control with `apiKey`, at TELNYX_API_BASE_URL. */
export function telnyxCallControl(
  config: Pick<Config, 'telephony' | 'outbound'>,
  apiKey: string,
): TelnyxCallControl {
  const base = `${config.telephony.telnyxApiBaseUrl}/v2`;
  async function post(url: string, body: Record<string, unknown>): Promise<string> {
    let response: Awaited<ReturnType<typeof sendOutbound>>;
    try {
      response = await sendOutbound({
        url,
        method: 'POST',
        headers: {
          Authorization: `Bearer ${apiKey}`,
          'Content-Type': 'application/json',
          Accept: 'application/json',
        },
        body: JSON.stringify(body),
        limits: { maxBytes: ANSWER_MAX_BYTES, timeoutMs: config.telephony.carrierTimeoutMs },
        policy: config.outbound,
      });
    } catch (error) {
      if (error instanceof OutboundError) throw carrierErrorOf(error);
      throw error;
    }
    if (response.status >= 400 && response.status < 500)
      throw new CarrierRefusedError(telnyxMessage(response.status, response.body), response.status);
    if (response.status < 200 || response.status >= 300)
      throw new CarrierUnknownOutcomeError(telnyxMessage(response.status, response.body));
    return response.body;
  }
  return {
    async dial(body) {
      let parsed: ReturnType<typeof DialAnswer.safeParse>;
      try {
        parsed = DialAnswer.safeParse(JSON.parse(await post(`${base}/calls`, body)));
      } catch (error) {
        if (error instanceof SyntaxError)
          throw new CarrierUnknownOutcomeError('Telnyx answered without JSON');
        throw error;
      }
      if (!parsed.success) throw new CarrierUnknownOutcomeError('Telnyx answered without a call_control_id');
      return parsed.data.data.call_control_id;
    },
    async command(callControlId, action, body = {}) {
      await post(`${base}/calls/${encodeURIComponent(callControlId)}/actions/${action}`, body);
    },
  };
}

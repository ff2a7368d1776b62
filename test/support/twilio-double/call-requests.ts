import twilio from 'twilio';
import type { LineOptions } from './line-signal';
import type { SignatureMode } from './media-stream';

export type CallStatus =
  | 'queued'
  | 'ringing'
  | 'in-progress'
  | 'completed'
  | 'busy'
  | 'no-answer'
  | 'failed'
  | 'canceled';
export type StatusCallbackEvent = 'initiated' | 'ringing' | 'answered' | 'completed';

/**
 * How the far end of a call behaves: answers after ringing, or is busy, does not answer, fails; or
 * (`refuse`) the REST API refuses to place the call (400, Twilio's 21211 "Invalid 'To' Phone Number").
 */
export interface CalleeScript {
  outcome: 'answer' | 'busy' | 'no-answer' | 'failed' | 'refuse';
  /** How long it rings before the outcome (default 100 ms). */
  ringMs?: number;
  /** How the status callbacks and the stream's upgrade are signed (default: as Twilio does). */
  signature?: SignatureMode;
  /** `hold`: the status callbacks are signed and recorded but posted only by `deliverHeldCallbacks`. */
  callbacks?: 'deliver' | 'hold';
  /** What the line adds to the caller's audio (echo, noise). */
  line?: LineOptions;
  /** Answered calls: the callee hangs up this long after the answer. */
  talkMs?: number;
  /**
   * Answered calls: `stream` (the default) follows the TwiML onto the media stream; `none` stays on
   * the line without opening it (a campaign's orchestration needs no conversation), until the
   * callee (`talkMs`) or the API hangs up.
   */
  media?: 'stream' | 'none';
  /**
   * Answered calls placed with asynchronous AMD (`MachineDetection`, `AsyncAmd=true`): what Twilio's
   * detection says (`AnsweredBy`, default `human`), posted `amdMs` after the answer (default 1 500).
   */
  answeredBy?: 'human' | 'machine_end_beep' | 'machine_end_silence' | 'machine_end_other' | 'fax' | 'unknown';
  amdMs?: number;
  /** Who a `<Dial>` of this call reaches (a transfer): default, they answer and talk until a hang-up. */
  dialed?: DialedPartyScript;
}

/** How the party a `<Dial>` rings behaves (default: answers after 100 ms, talks until a hang-up). */
export interface DialedPartyScript {
  outcome: 'answer' | 'busy' | 'no-answer' | 'failed';
  ringMs?: number;
  /** Answered: the dialled party hangs up this long after the whisper (else: when the caller does). */
  talkMs?: number;
}

/** A status callback the double signed, and how the platform answered it. */
export interface PostedCallback {
  event: StatusCallbackEvent;
  url: string;
  method: 'POST' | 'GET';
  params: Record<string, string>;
  signature?: string;
  /** The platform's HTTP status (undefined while held or when the request failed). */
  status?: number;
}

export interface CallSetup {
  accountSid: string;
  authToken: string;
  direction: 'inbound' | 'outbound-api';
  from: string;
  to: string;
  twiml?: string;
  url?: string;
  statusCallback?: string;
  statusCallbackEvents: StatusCallbackEvent[];
  statusCallbackMethod: 'POST' | 'GET';
  /** Asynchronous AMD asked (`MachineDetection` with `AsyncAmd=true`): where its verdict is posted. */
  asyncAmdStatusCallback?: string;
  script: CalleeScript;
}

/** The `X-Twilio-Signature` of a request to `url` with `params`, by the `twilio` package, as the script says. */
export function signatureFor(
  setup: CallSetup,
  url: string,
  params: Record<string, string>,
): string | undefined {
  const mode = setup.script.signature ?? 'valid';
  if (mode === 'missing') return undefined;
  const token = mode === 'wrong' ? `${setup.authToken}x` : setup.authToken;
  return twilio.getExpectedTwilioSignature(token, url, params);
}

/** Posts (or GETs) a status callback; the platform's HTTP status, or undefined when it could not be reached. */
export async function postCallback(callback: PostedCallback): Promise<number | undefined> {
  const headers: Record<string, string> = callback.signature
    ? { 'X-Twilio-Signature': callback.signature }
    : {};
  const init =
    callback.method === 'GET'
      ? { method: 'GET', headers }
      : {
          method: 'POST',
          headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams(callback.params).toString(),
        };
  try {
    const response = await fetch(callback.url, init);
    await response.arrayBuffer();
    return response.status;
  } catch {
    return undefined;
  }
}

/** Posts a call's parameters, form-encoded and signed, to a URL that answers TwiML. */
export async function requestTwiml(
  url: string,
  params: Record<string, string>,
  signature: string | undefined,
): Promise<{ status: number; body: string }> {
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers: {
        ...(signature ? { 'X-Twilio-Signature': signature } : {}),
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams(params).toString(),
    });
    return { status: response.status, body: await response.text() };
  } catch (error) {
    return { status: 0, body: String(error) };
  }
}

import type { Config } from '../../config/env';
import { OutboundError, sendOutbound } from '../../outbound/http';
import { STREAM_TOKEN_PARAMETER } from '../calls/stream-token';
import { twilioMediaProtocol } from '../twilio/media-protocol';
import { paramsOfForm, TWILIO_SIGNATURE_HEADER, verifyTwilioSignature } from '../twilio/signature';
import { connectStreamTwiml, dialTwiml } from '../twilio/twiml';
import {
  type CallToPlace,
  type CarrierClient,
  CarrierRefusedError,
  type CarrierRequest,
  CarrierUnknownOutcomeError,
  carrierErrorOf,
} from './carrier';

/** Twilio's answer is a call resource of a few KiB; an error is smaller. */
const ANSWER_MAX_BYTES = 64 * 1024;

/** The message of Twilio's error body (`{ code, message, more_info, status }`), else the status. */
function twilioMessage(status: number, body: string): string {
  try {
    const parsed = JSON.parse(body) as { message?: unknown; code?: unknown };
    if (typeof parsed.message === 'string') {
      return parsed.code === undefined ? parsed.message : `${parsed.message} (Twilio error ${parsed.code})`;
    }
  } catch {
    // not JSON
  }
  return `Twilio answered ${status}`;
}

/**
 * Twilio's Programmable Voice REST API (https://www.twilio.com/docs/voice/api/call-resource):
 * `POST /2010-04-01/Accounts/{AccountSid}/Calls.json` places a call with inline TwiML that connects
 * it to the platform's media stream, `POST …/Calls/{Sid}.json` with `Status=completed` ends it, and
 * with `Twiml` (a `<Dial>`) transfers it. Basic
 * auth with the Account SID and auth token; form-encoded bodies; through the outbound guard.
 */
export function twilioCarrier(
  config: Pick<Config, 'telephony' | 'outbound'>,
  credentials: { accountSid: string; authToken: string },
): CarrierClient {
  const base = `${config.telephony.twilioApiBaseUrl}/2010-04-01/Accounts/${credentials.accountSid}`;
  const auth = Buffer.from(`${credentials.accountSid}:${credentials.authToken}`).toString('base64');

  async function post(url: string, form: URLSearchParams): Promise<string> {
    let response: Awaited<ReturnType<typeof sendOutbound>>;
    try {
      response = await sendOutbound({
        url,
        method: 'POST',
        headers: {
          Authorization: `Basic ${auth}`,
          'Content-Type': 'application/x-www-form-urlencoded',
          Accept: 'application/json',
        },
        body: form.toString(),
        limits: { maxBytes: ANSWER_MAX_BYTES, timeoutMs: config.telephony.carrierTimeoutMs },
        policy: config.outbound,
      });
    } catch (error) {
      if (error instanceof OutboundError) throw carrierErrorOf(error);
      throw error;
    }
    if (response.status >= 400 && response.status < 500) {
      throw new CarrierRefusedError(twilioMessage(response.status, response.body), response.status);
    }
    if (response.status < 200 || response.status >= 300) {
      throw new CarrierUnknownOutcomeError(twilioMessage(response.status, response.body));
    }
    return response.body;
  }

  function verify(url: string, headers: CarrierRequest['headers'], rawBody: string): boolean {
    const signature = headers[TWILIO_SIGNATURE_HEADER];
    const params = paramsOfForm(new URLSearchParams(rawBody));
    const given = typeof signature === 'string' ? signature : undefined;
    return verifyTwilioSignature(credentials.authToken, given, url, params);
  }

  return {
    async placeCall(call: CallToPlace) {
      const form = new URLSearchParams({
        To: call.to,
        From: call.from,
        Twiml: connectStreamTwiml(call.streamUrl, { [STREAM_TOKEN_PARAMETER]: call.callToken }),
        StatusCallback: call.statusCallbackUrl,
        StatusCallbackMethod: 'POST',
        // answering-machine detection in the background (the call is on its stream meanwhile), its
        // verdict posted once the machine's greeting has ended (docs/telephony.md "Voicemail")
        MachineDetection: 'DetectMessageEnd',
        AsyncAmd: 'true',
        AsyncAmdStatusCallback: call.answeredByCallbackUrl,
        AsyncAmdStatusCallbackMethod: 'POST',
      });
      // not `initiated`: it says `queued`, which the call is already (docs/telephony.md)
      for (const event of ['ringing', 'answered', 'completed']) {
        form.append('StatusCallbackEvent', event);
      }
      const body = await post(`${base}/Calls.json`, form);
      const sid = (JSON.parse(body) as { sid?: unknown }).sid;
      if (typeof sid !== 'string') throw new CarrierUnknownOutcomeError('Twilio answered without a call sid');
      return { carrierCallId: sid };
    },
    async hangUp(carrierCallId: string) {
      await post(
        `${base}/Calls/${encodeURIComponent(carrierCallId)}.json`,
        new URLSearchParams({ Status: 'completed' }),
      );
    },
    async transfer(carrierCallId, { destination, callerId, warm }) {
      // the call's TwiML replaced (Twilio's call update): <Dial> instead of <Connect><Stream>; a warm
      // one whispers to the callee (the noun's `url`) and reports its end (the Dial's `action`)
      const twiml = warm
        ? dialTwiml(destination, { callerId, actionUrl: warm.dialEndedUrl, whisperUrl: warm.whisperUrl })
        : dialTwiml(destination, { callerId });
      await post(
        `${base}/Calls/${encodeURIComponent(carrierCallId)}.json`,
        new URLSearchParams({ Twiml: twiml }),
      );
    },
    verifyWebhook: ({ url, headers, rawBody }) => verify(url, headers, rawBody),
    // Twilio signs the stream's upgrade as a webhook without a body: over the stream URL alone
    verifyMediaUpgrade: ({ url, headers }) => verify(url, headers, ''),
    media: twilioMediaProtocol,
  };
}

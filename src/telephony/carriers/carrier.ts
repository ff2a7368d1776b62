/**
 * What the platform asks of a carrier (docs/telephony.md "Calls"): place a call, hang one up, and
 * tell whether a webhook is the carrier's. One implementation per carrier (twilio.ts); a third
 * carrier is one new file.
 */

/** An outbound call to place. */
export interface CallToPlace {
  /** The platform's call id (`call_…`). */
  callId: string;
  from: string;
  to: string;
  /** The media stream WebSocket the call is connected to once answered (no query string). */
  streamUrl: string;
  /** Handed back in the stream's start message (the call token). */
  streamParameters: Record<string, string>;
  /** Where the carrier posts the call's status changes (names the call in its query). */
  statusCallbackUrl: string;
}

/** The carrier refused the request (a 4xx): nothing was placed, and asking again will not help. */
export class CarrierRefusedError extends Error {
  constructor(
    message: string,
    readonly statusCode: number,
  ) {
    super(message);
    this.name = 'CarrierRefusedError';
  }
}

/**
 * The carrier could not be asked, or its answer was lost (a timeout, a 5xx, a broken connection):
 * the call may or may not have been placed.
 */
export class CarrierUnknownOutcomeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CarrierUnknownOutcomeError';
  }
}

export interface CarrierClient {
  /** Places the call; answers the carrier's id of it. */
  placeCall(call: CallToPlace): Promise<{ carrierCallId: string }>;
  /** Ends a call under way (or cancels one still ringing). */
  hangUp(carrierCallId: string): Promise<void>;
  /** Whether a webhook request (its full URL as the carrier requested it, headers and form) is the carrier's. */
  verifyWebhook(
    url: string,
    headers: Record<string, string | string[] | undefined>,
    params: Record<string, string | string[]>,
  ): boolean;
}

/**
 * What the platform asks of a carrier (docs/telephony.md "Calls"): place a call, hang one up, tell
 * whether a webhook or a media stream's upgrade is the carrier's, and speak the carrier's media
 * stream protocol. One implementation per carrier (twilio.ts, telnyx.ts), each with its protocol
 * folder (../twilio, ../telnyx); a third carrier is one new file here and its folder.
 */
import type { StreamMessageError } from './stream-frames';

/** An outbound call to place. */
export interface CallToPlace {
  /** The platform's call id (`call_…`). */
  callId: string;
  from: string;
  to: string;
  /** The media stream WebSocket the call is connected to once answered (no query string). */
  streamUrl: string;
  /** The call token, handed back in the stream's start message. */
  callToken: string;
  /** Where the carrier posts the call's status changes (names the call in its query). */
  statusCallbackUrl: string;
  /**
   * Where a carrier that detects answering machines posts who answered (names the call in its
   * query): Twilio's asynchronous AMD. A carrier without one ignores it.
   */
  answeredByCallbackUrl: string;
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

/**
 * The carrier was never asked: the request did not leave whole (no connection, or cut before its
 * last byte was written), so nothing was placed and asking again is safe. A kind of unknown outcome,
 * so a caller that does not tell them apart stays on the safe side.
 */
export class CarrierNotAskedError extends CarrierUnknownOutcomeError {
  constructor(message: string) {
    super(message);
    this.name = 'CarrierNotAskedError';
  }
}

/** The carrier's error for an outbound request that failed: not asked, or an unknown outcome. */
export const carrierErrorOf = (error: { message: string; requestSent: boolean }) =>
  error.requestSent ? new CarrierUnknownOutcomeError(error.message) : new CarrierNotAskedError(error.message);

/** A request as the carrier sent it: its full public URL, its headers, and its body as received. */
export interface CarrierRequest {
  url: string;
  headers: Readonly<Record<string, string | string[] | undefined>>;
  /** The raw body (a form for Twilio, JSON for Telnyx; empty for a WebSocket upgrade). */
  rawBody: string;
}

/** A carrier's media stream message, as the call's transport needs it. */
export type CarrierMediaEvent =
  | { event: 'start'; streamId: string; callToken: string }
  /** A caller frame; `timestampMs`: the carrier's clock, from the stream's start, when it gives one. */
  | { event: 'media'; payload: string; timestampMs?: number }
  | { event: 'mark'; name: string }
  | { event: 'dtmf'; digit: string }
  | { event: 'stop' }
  /** The carrier reports a problem with the stream (logged). */
  | { event: 'error'; detail: string }
  /** A message with nothing to act on (`connected`, the outbound track). */
  | { event: 'ignored' };

/** A carrier's media stream protocol: its frames in, the platform's frames out (one JSON text frame each). */
export interface CarrierMediaProtocol {
  parse(frame: Buffer): { ok: true; event: CarrierMediaEvent } | { ok: false; error: StreamMessageError };
  /** μ-law 8 kHz audio to play to the caller. */
  media(streamId: string, mulaw: Uint8Array): string;
  /** Echoed once the audio sent before it has played. */
  mark(streamId: string, name: string): string;
  /** Drops the audio the carrier holds unplayed (it echoes the pending marks). */
  clear(streamId: string): string;
}

/** A transfer as the carrier is asked it. */
export interface TransferAtCarrier {
  destination: string;
  callerId: string;
  /** A warm transfer: where the carrier asks for the whisper, and where it says the dial ended. */
  warm?: { whisperUrl: string; dialEndedUrl: string };
}

export interface CarrierClient {
  /** Places the call; answers the carrier's id of it. */
  placeCall(call: CallToPlace): Promise<{ carrierCallId: string }>;
  /** Ends a call under way (or cancels one still ringing). */
  hangUp(carrierCallId: string): Promise<void>;
  /**
   * Puts the caller through to `destination` (E.164 or a SIP URI), shown as calling from `callerId`:
   * the call leaves its media stream, and its status callbacks go on. Cold without `warm`; warm
   * with it: the callee hears the whisper first, and the carrier says how the dial ended (a carrier
   * that cannot throws CarrierRefusedError).
   */
  transfer(carrierCallId: string, to: TransferAtCarrier): Promise<void>;
  /** Whether a webhook request is the carrier's (its signature). */
  verifyWebhook(request: CarrierRequest): boolean;
  /**
   * Whether a media stream's WebSocket upgrade may open: the carrier's signature where it signs
   * upgrades (Twilio); where it does not (Telnyx), the call token in the stream's start decides.
   */
  verifyMediaUpgrade(request: Omit<CarrierRequest, 'rawBody'>): boolean;
  /** The carrier's media stream messages. */
  readonly media: CarrierMediaProtocol;
}

import * as http from 'node:http';
import * as https from 'node:https';
import { performance } from 'node:perf_hooks';
import { clock } from './command';

/**
 * `vp listen`'s side of its protocol (docs/cli.md "vp listen"): the server's messages, checked as
 * they arrive, and the forwarding of one delivery to the local server with its answer.
 */

export interface ReadyMessage {
  type: 'listen.ready';
  webhookId: string;
  events: string[];
  secret: string | null;
}

export interface DeliveryMessage {
  type: 'delivery';
  deliveryId: string;
  attempt: number;
  eventId: string;
  eventType: string;
  headers: Record<string, string>;
  body: string;
}

export interface ServerErrorMessage {
  type: 'error';
  code: string;
  message: string;
}

export type ListenServerMessage = ReadyMessage | DeliveryMessage | ServerErrorMessage;

/** What the CLI answers for one delivery: the local server's status, or why it had none. */
export type DeliveryAnswer = {
  type: 'delivery.answer';
  deliveryId: string;
  attempt: number;
  latencyMs: number;
} & ({ status: number; body: string } | { error: string });

export const FORWARD_TIMEOUT_MS = 10_000;
/** How much of the local server's answer goes back to the platform. */
export const ANSWER_BODY_CHARS = 4096;

type Fields = Record<string, unknown>;
const isString = (value: unknown): value is string => typeof value === 'string';
const isStringRecord = (value: unknown): value is Record<string, string> =>
  typeof value === 'object' && value !== null && Object.values(value).every(isString);

function isDelivery(m: Fields): boolean {
  return (
    [m.deliveryId, m.eventId, m.eventType, m.body].every(isString) &&
    Number.isInteger(m.attempt) &&
    isStringRecord(m.headers)
  );
}

/** The server's message in a text frame, or undefined when it is not one this CLI knows. */
export function parseServerMessage(text: string): ListenServerMessage | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null) return undefined;
  const m = parsed as Fields;
  const valid =
    (m.type === 'listen.ready' &&
      isString(m.webhookId) &&
      Array.isArray(m.events) &&
      m.events.every(isString) &&
      (m.secret === null || isString(m.secret))) ||
    (m.type === 'delivery' && isDelivery(m)) ||
    (m.type === 'error' && isString(m.code) && isString(m.message));
  return valid ? (parsed as ListenServerMessage) : undefined;
}

/** Headers the request itself sets from the URL and the body. */
const TRANSPORT_HEADERS = new Set(['host', 'content-length', 'connection', 'transfer-encoding']);

/**
 * POSTs the delivery's body, byte for byte, to `forwardTo` with the delivery's headers, and reads
 * the answer; resolves with its status and text, or with an error (unreachable, timed out).
 */
function post(
  forwardTo: URL,
  delivery: DeliveryMessage,
  signal: AbortSignal,
): Promise<{ status: number; body: string }> {
  const body = Buffer.from(delivery.body, 'utf8');
  const headers = Object.fromEntries(
    Object.entries(delivery.headers).filter(([name]) => !TRANSPORT_HEADERS.has(name.toLowerCase())),
  );
  const send = forwardTo.protocol === 'https:' ? https.request : http.request;
  return new Promise((resolve, reject) => {
    const request = send(forwardTo, {
      method: 'POST',
      headers: { ...headers, 'content-length': String(body.length) },
      signal: AbortSignal.any([signal, AbortSignal.timeout(FORWARD_TIMEOUT_MS)]),
    });
    request.on('response', (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        if (text.length < ANSWER_BODY_CHARS) text += chunk;
      });
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, body: text.slice(0, ANSWER_BODY_CHARS) }),
      );
      response.on('error', reject);
    });
    request.on('error', reject);
    request.end(body);
  });
}

/** Why a forward failed, in a few words: `connect ECONNREFUSED 127.0.0.1:4242`, `timed out after 10000 ms`. */
function failureReason(error: unknown): string {
  if (error instanceof Error && (error.name === 'AbortError' || error.name === 'TimeoutError')) {
    const cause = (error as { cause?: unknown }).cause;
    const timedOut =
      error.name === 'TimeoutError' || (cause instanceof Error && cause.name === 'TimeoutError');
    return timedOut ? `timed out after ${FORWARD_TIMEOUT_MS} ms` : 'cancelled';
  }
  return error instanceof Error ? error.message : String(error);
}

/** Forwards one delivery and builds the answer for the platform. */
export async function forwardDelivery(
  forwardTo: URL,
  delivery: DeliveryMessage,
  signal: AbortSignal,
): Promise<DeliveryAnswer> {
  const started = performance.now();
  const base = {
    type: 'delivery.answer' as const,
    deliveryId: delivery.deliveryId,
    attempt: delivery.attempt,
  };
  try {
    const answer = await post(forwardTo, delivery, signal);
    return {
      ...base,
      status: answer.status,
      latencyMs: Math.round(performance.now() - started),
      body: answer.body,
    };
  } catch (error) {
    return { ...base, error: failureReason(error), latencyMs: Math.round(performance.now() - started) };
  }
}

/** The delivery log line: time, event type, event id, `--> status` (or the error), latency. */
export function deliveryLine(delivery: DeliveryMessage, answer: DeliveryAnswer): string {
  const outcome = 'status' in answer ? `--> ${answer.status}` : `--> error: ${answer.error}`;
  const retry = delivery.attempt > 1 ? `  (attempt ${delivery.attempt})` : '';
  return `${clock(new Date().toISOString())}  ${delivery.eventType.padEnd(26)}  ${delivery.eventId}  ${outcome}  ${answer.latencyMs}ms${retry}\n`;
}

/**
 * A carrier's media stream frame, parsed: every carrier here sends one JSON object per text frame,
 * its `event` naming it. Shared by the carriers' protocol folders (twilio/, telnyx/). Pure: zod only.
 */
import type { z } from 'zod';

/** Why a text frame is not a message: not one JSON object, an unknown `event`, or fields that do not fit. */
export type StreamMessageErrorName = 'NOT_JSON' | 'UNKNOWN_EVENT' | 'INVALID_MESSAGE';
export interface StreamMessageError {
  name: StreamMessageErrorName;
  /** The problem, field by field (`media.payload: …`). */
  message: string;
}
export type ParsedStreamMessage<T> = { ok: true; message: T } | { ok: false; error: StreamMessageError };

/** A text frame as one of `events`, checked against `schema`, or the named reason it is not. */
export function parseStreamFrame<T>(
  text: string | Buffer,
  events: readonly string[],
  schema: z.ZodType<T>,
): ParsedStreamMessage<T> {
  const fail = (name: StreamMessageErrorName, message: string) => ({
    ok: false as const,
    error: { name, message },
  });
  let json: unknown;
  try {
    json = JSON.parse(typeof text === 'string' ? text : text.toString('utf8'));
  } catch {
    return fail('NOT_JSON', 'A text frame must hold one JSON object');
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json))
    return fail('NOT_JSON', 'A text frame must hold one JSON object');
  const event = (json as { event?: unknown }).event;
  if (typeof event !== 'string' || !events.includes(event)) {
    const got = typeof event === 'string' ? ` (got "${event.slice(0, 40)}")` : '';
    return fail('UNKNOWN_EVENT', `event: must be one of ${events.join(', ')}${got}`);
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.') || '(message)'}: ${i.message}`);
    return fail('INVALID_MESSAGE', problems.join('; '));
  }
  return { ok: true, message: parsed.data };
}

import { nulProblems } from '../../http/validation';
import { CLIENT_MESSAGE_TYPES, ClientMessage, MAX_TEXT_FRAME_BYTES, type StreamErrorCode } from './protocol';

type Parsed = { ok: true; message: ClientMessage } | { ok: false; code: StreamErrorCode; message: string };

/**
 * A client's text frame as a message: JSON, an object whose `type` is a client message's, matching
 * its schema (docs/voice-stream.md "Errors"). Anything else is an `error` event naming the problem,
 * and changes nothing.
 */
export function parseClientFrame(bytes: Buffer): Parsed {
  if (bytes.byteLength > MAX_TEXT_FRAME_BYTES)
    return {
      ok: false,
      code: 'FRAME_TOO_LARGE',
      message: `A text frame is at most ${MAX_TEXT_FRAME_BYTES} bytes`,
    };
  let json: unknown;
  try {
    json = JSON.parse(bytes.toString('utf8'));
  } catch {
    return { ok: false, code: 'INVALID_MESSAGE', message: 'A text frame must hold one JSON object' };
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json))
    return { ok: false, code: 'INVALID_MESSAGE', message: 'A text frame must hold one JSON object' };
  const type = (json as { type?: unknown }).type;
  if (typeof type !== 'string' || !(CLIENT_MESSAGE_TYPES as readonly string[]).includes(type)) {
    return {
      ok: false,
      code: 'UNKNOWN_TYPE',
      message: `type: must be one of ${CLIENT_MESSAGE_TYPES.join(', ')}${typeof type === 'string' ? ` (got "${type.slice(0, 40)}")` : ''}`,
    };
  }
  // NUL and unpaired surrogates cannot be stored (the turn's record is jsonb): refused as on every HTTP route
  const unstorable = nulProblems(json, 'body').map((p) => p.replace(/^body: /, '(message): '));
  if (unstorable.length > 0) return { ok: false, code: 'INVALID_MESSAGE', message: unstorable.join('; ') };
  const parsed = ClientMessage.safeParse(json);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.') || '(message)'}: ${i.message}`);
    return { ok: false, code: 'INVALID_MESSAGE', message: problems.join('; ') };
  }
  return { ok: true, message: parsed.data };
}

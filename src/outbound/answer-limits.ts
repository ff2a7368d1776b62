/**
 * How much of an answer the platform reads from anything it calls, and for how long: one policy per
 * kind of outbound reader, in this one table, and one way of enforcing it (`cappedChunks`). Past the
 * cap the connection is destroyed, so the server's writes fail and nothing more is read, and the read
 * fails with OutboundError 'too_large': an answer over the cap is an error, never a truncated
 * success (docs/configuration.md "Outbound calls").
 */

/**
 * Classified outbound failures, so callers can record a clear reason. `requestSent` is false only
 * when the request never left whole (refused before connecting, no connection, or cut before its
 * last byte was written): the other side cannot have acted on it, so asking again is safe.
 */
export class OutboundError extends Error {
  constructor(
    message: string,
    readonly kind: 'blocked' | 'timeout' | 'connection' | 'invalid_url' | 'too_large',
    readonly latencyMs: number,
    readonly requestSent = true,
  ) {
    super(message);
    this.name = 'OutboundError';
  }
}

/** One kind of reader's limits: the most bytes of one answer, and the whole exchange's deadline. */
export interface AnswerLimits {
  readonly maxBytes: number;
  /** From the request to the answer's last byte (a reader with a setting of its own overrides it). */
  readonly timeoutMs: number;
}

const KiB = 1024;
const MiB = 1024 * KiB;

export const ANSWER_LIMITS = {
  /** A webhook receiver: only its status counts; 4 KiB of the answer is kept for the attempt log. */
  webhookReceiver: { maxBytes: 64 * KiB, timeoutMs: 30_000 }, // WEBHOOK_TIMEOUT_MS overrides
  /** A webhook tool's answer is its result. */
  webhookTool: { maxBytes: MiB, timeoutMs: 10_000 }, // a tool's `timeoutMs` overrides
  /** One MCP answer (a POST's body; on a long-lived event stream, each event). */
  mcpServer: { maxBytes: MiB, timeoutMs: 60_000 }, // the longest call timeout a node may set
  /** A marketplace tool run: HTTP answer or MCP answer. */
  marketplaceTool: { maxBytes: MiB, timeoutMs: 30_000 },
  /** An OAuth token endpoint (token, refresh, revocation). */
  oauthEndpoint: { maxBytes: 64 * KiB, timeoutMs: 15_000 },
  /** A remote speech provider's audio (about 40 minutes of 32 kbps MP3). */
  speech: { maxBytes: 10 * MiB, timeoutMs: 20_000 },
  /** A transcription: a few hundred bytes of JSON. */
  transcription: { maxBytes: MiB, timeoutMs: 10_000 }, // STT_TIMEOUT_MS overrides
  /** A whole chat completion (prompt tools, `llm_prompt` nodes). */
  modelCompletion: { maxBytes: MiB, timeoutMs: 30_000 },
  /** A streamed chat completion: each token is an event of a few hundred bytes. */
  modelStream: { maxBytes: 8 * MiB, timeoutMs: 30_000 },
  /** The console identity provider's signing keys (AUTH_JWKS_URL): a few keys of about 1 KiB. */
  identityKeys: { maxBytes: 256 * KiB, timeoutMs: 5_000 },
  /** A knowledge base's URL source: one page or document, at most what an upload may be. */
  knowledgeSource: { maxBytes: 20 * MiB, timeoutMs: 30_000 },
  /** A batch of embeddings (64 texts of up to 3 072 numbers as JSON); a question's has EMBEDDINGS_QUERY_TIMEOUT_MS. */
  embeddings: { maxBytes: 16 * MiB, timeoutMs: 30_000 },
} as const satisfies Record<string, AnswerLimits>;

/** The error of an answer past its cap. */
export function answerTooLarge(maxBytes: number, latencyMs = 0): OutboundError {
  return new OutboundError(`The answer exceeded the ${maxBytes}-byte limit`, 'too_large', latencyMs);
}

/** A response body: its chunks, and a way to close its connection. */
export type AnswerBody = AsyncIterable<Uint8Array> & { destroy(error?: Error): unknown };

export interface CapOptions {
  /**
   * A long-lived server-sent event stream (an MCP server's GET stream): the cap is on each event
   * (the bytes since the last blank line) instead of the whole stream, which may run for hours.
   */
  perEvent?: boolean;
  /** Called once, as the cap is passed, before the read fails (an MCP connection closes itself). */
  onTooLarge?: (error: OutboundError) => void;
}

/**
 * The events of an event stream as `chunk` continues it: the size of the largest event it ends, and
 * of the event under way after it. An event ends at a blank line ("\n\n" or "\n\r\n"; a stream
 * ending lines with CR alone is counted as one event, which errs on the safe side). `tail` is the
 * last two bytes before `chunk`, so a boundary split between chunks is seen; `current` the bytes
 * of the event under way before it.
 */
function eventSizes(chunk: Uint8Array, tail: Buffer, current: number) {
  const joined = Buffer.concat([tail, chunk]);
  let largest = 0;
  let start = -1; // where the event under way began in `joined` (-1: before it)
  for (let i = joined.indexOf(0x0a); i !== -1 && i < joined.length; i = joined.indexOf(0x0a, i + 1)) {
    const end =
      joined[i + 1] === 0x0a ? i + 2 : joined[i + 1] === 0x0d && joined[i + 2] === 0x0a ? i + 3 : -1;
    if (end === -1 || end <= tail.length) continue; // not a boundary, or one seen with the last chunk
    largest = Math.max(largest, start === -1 ? current + end - tail.length : end - start);
    start = end;
  }
  const bytes = start === -1 ? current + chunk.length : joined.length - start;
  return { largest, bytes, tail: Buffer.from(joined.subarray(Math.max(0, joined.length - 2))) };
}

/**
 * The one way an outbound answer is read: `body`'s chunks as they arrive, until more than `maxBytes`
 * have come; then the body is destroyed (closing the connection mid-answer) and the iteration throws
 * OutboundError 'too_large'. A reader that stops early closes the body itself (or reads the rest
 * off, to keep the connection).
 */
export async function* cappedChunks(
  body: AnswerBody,
  maxBytes: number,
  options: CapOptions = {},
): AsyncGenerator<Uint8Array> {
  let counted = 0;
  let tail: Buffer = Buffer.alloc(0);
  for await (const chunk of body) {
    let largest = 0;
    if (options.perEvent) ({ largest, bytes: counted, tail } = eventSizes(chunk, tail, counted));
    else counted += chunk.length;
    if (counted > maxBytes || largest > maxBytes) {
      body.destroy();
      const error = answerTooLarge(maxBytes);
      options.onTooLarge?.(error);
      throw error;
    }
    yield chunk;
  }
}

/** A whole answer, read through `cappedChunks`. */
export async function readCapped(body: AnswerBody, maxBytes: number): Promise<Buffer> {
  const parts: Uint8Array[] = [];
  for await (const chunk of cappedChunks(body, maxBytes)) parts.push(chunk);
  return Buffer.concat(parts);
}

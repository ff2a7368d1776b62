import { createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A deterministic OpenAI-compatible embeddings provider (`POST /v1/embeddings`, the request and
 * answer formats of OpenAI's API): each text's vector is a hashed bag of its words (lower-cased,
 * stop words left out, a crude stem), their bigrams and their letter trigrams, normalised to unit
 * length, so texts that share words (or word stems) are close by cosine distance. No meaning beyond
 * shared words: a test of hybrid retrieval with it measures the fusion, not a model.
 */

/** The vector length unless a request asks for `dimensions`. */
export const DOUBLE_DIMENSIONS = 256;

const STOP_WORDS = new Set(
  'a an and are as at be by can do does for from has have how i if in is it its my of on or our the to we what when where which who will with you your'.split(
    ' ',
  ),
);

/** A crude stem, so "refunds"/"refunded"/"refund" share a feature. */
function stem(word: string): string {
  return word.replace(/(ing|ed|es|s)$/u, '').slice(0, 8) || word;
}

function bucket(feature: string, dimensions: number): { index: number; sign: number } {
  const h = createHash('sha1').update(feature).digest();
  return { index: h.readUInt32BE(0) % dimensions, sign: h[4]! & 1 ? 1 : -1 };
}

/** The double's vector of `text`: deterministic, unit length (all zeros for a text without words). */
export function embedDeterministically(text: string, dimensions = DOUBLE_DIMENSIONS): number[] {
  const vector = new Array<number>(dimensions).fill(0);
  const words = (text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter((w) => !STOP_WORDS.has(w));
  const add = (feature: string, weight: number) => {
    const { index, sign } = bucket(feature, dimensions);
    vector[index]! += sign * weight;
  };
  words.forEach((w, i) => {
    const s = stem(w);
    add(`w:${s}`, 1);
    if (i > 0) add(`b:${stem(words[i - 1]!)} ${s}`, 0.5);
    const padded = `^${w}$`;
    for (let k = 0; k + 3 <= padded.length; k++) add(`t:${padded.slice(k, k + 3)}`, 0.15);
  });
  const norm = Math.hypot(...vector);
  return norm > 0 ? vector.map((v) => v / norm) : vector;
}

/** An embeddings request as the double received it. */
export interface EmbeddingsRequest {
  model: string;
  input: string[];
  dimensions?: number;
  /** The `Authorization` header as sent (undefined: none). */
  authorization?: string;
}

/** How the double answers; `configure` changes it between requests. */
export interface EmbeddingsBehavior {
  /** Answer only after this long (default 0). */
  delayMs: number;
  /** Answer this status (with an OpenAI-style error) instead of embeddings. */
  status?: number;
  /** Answer `status` (default 503) to this many requests, then embeddings again. */
  failNext?: number;
  /** Never answer: the request stays open until the client gives up or the double closes. */
  hang?: boolean;
}

export interface EmbeddingsDouble {
  /** The base URL to configure as EMBEDDINGS_BASE_URL (it includes `/v1`). */
  baseUrl: string;
  requests: EmbeddingsRequest[];
  configure(behavior: Partial<EmbeddingsBehavior>): void;
  close(): Promise<void>;
}

function errorBody(message: string, type: string) {
  return JSON.stringify({ error: { message, type, param: null, code: null } });
}

/** Reads and checks a request as OpenAI does: `model`, and `input` a string or an array of strings. */
function parseRequest(body: string): Omit<EmbeddingsRequest, 'authorization'> | string {
  let json: { model?: unknown; input?: unknown; dimensions?: unknown };
  try {
    json = JSON.parse(body);
  } catch {
    return 'We could not parse the JSON body of your request.';
  }
  if (typeof json.model !== 'string' || !json.model) return "'model' is a required property";
  const input = typeof json.input === 'string' ? [json.input] : json.input;
  if (!Array.isArray(input) || input.length === 0 || input.some((t) => typeof t !== 'string' || !t))
    return "'input' must be a non-empty string or array of non-empty strings";
  if (input.length > 2048) return "'input' must have at most 2048 items";
  const dimensions = json.dimensions;
  if (dimensions !== undefined && (!Number.isInteger(dimensions) || (dimensions as number) < 1))
    return "'dimensions' must be a positive integer";
  return { model: json.model, input: input as string[], dimensions: dimensions as number | undefined };
}

export async function startEmbeddingsDouble(
  initial: Partial<EmbeddingsBehavior> = {},
): Promise<EmbeddingsDouble> {
  let behavior: EmbeddingsBehavior = { delayMs: 0, ...initial };
  const requests: EmbeddingsRequest[] = [];
  const server = http.createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (p: Buffer) => parts.push(p));
    req.on('end', async () => {
      const send = (status: number, body: string) =>
        res.writeHead(status, { 'content-type': 'application/json' }).end(body);
      if (req.method !== 'POST' || req.url !== '/v1/embeddings')
        return send(404, errorBody('Unknown request URL', 'invalid_request_error'));
      const parsed = parseRequest(Buffer.concat(parts).toString('utf8'));
      if (typeof parsed === 'string') return send(400, errorBody(parsed, 'invalid_request_error'));
      requests.push({ ...parsed, authorization: req.headers.authorization });
      if (behavior.hang) return;
      if (behavior.delayMs) await new Promise((r) => setTimeout(r, behavior.delayMs));
      if (behavior.failNext) {
        behavior = { ...behavior, failNext: behavior.failNext - 1 };
        return send(behavior.status ?? 503, errorBody('The server is overloaded', 'server_error'));
      }
      if (behavior.status)
        return send(behavior.status, errorBody('Refused by the double', 'invalid_request_error'));
      const tokens = parsed.input.reduce((n, t) => n + Math.ceil(t.length / 4), 0);
      send(
        200,
        JSON.stringify({
          object: 'list',
          data: parsed.input.map((text, index) => ({
            object: 'embedding',
            index,
            embedding: embedDeterministically(text, parsed.dimensions ?? DOUBLE_DIMENSIONS),
          })),
          model: parsed.model,
          usage: { prompt_tokens: tokens, total_tokens: tokens },
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    configure(next) {
      behavior = { ...behavior, ...next };
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

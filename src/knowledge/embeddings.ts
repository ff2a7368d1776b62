import { z } from 'zod';
import type { EmbeddingsConfig } from '../config/embeddings';
import { ANSWER_LIMITS, OutboundError } from '../outbound/answer-limits';
import { postJson } from '../outbound/provider';

/** Texts per request to the provider. */
export const EMBEDDING_BATCH_SIZE = 64;

/** What an OpenAI-compatible `POST /embeddings` answers (only the fields read). */
const embeddingsAnswer = z.object({
  data: z
    .array(
      z.object({
        index: z.number().int().min(0),
        embedding: z.array(z.number().finite()).min(1),
      }),
    )
    .min(1),
});

/** Why the provider gave no vectors; `retryable` for an outage (unreachable, timeout, 429, 5xx). */
export class EmbeddingsError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
  ) {
    super(message);
    this.name = 'EmbeddingsError';
  }
}

/** Strips the provider key from a message that might quote it. */
const scrub = (text: string, key?: string) => (key ? text.split(key).join('***') : text);

/** One request: at most EMBEDDING_BATCH_SIZE texts, their vectors in the texts' order. */
async function embedBatch(config: EmbeddingsConfig, texts: string[], timeoutMs: number): Promise<number[][]> {
  let response: Awaited<ReturnType<typeof postJson>>;
  try {
    response = await postJson(
      `${config.baseUrl.replace(/\/$/, '')}/embeddings`,
      config.apiKey ? { Authorization: `Bearer ${config.apiKey}` } : {},
      {
        model: config.model,
        input: texts,
        encoding_format: 'float',
        ...(config.dimensions ? { dimensions: config.dimensions } : {}),
      },
      { maxBytes: ANSWER_LIMITS.embeddings.maxBytes, timeoutMs },
    );
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    const tooLarge = error instanceof OutboundError && error.kind === 'too_large';
    throw new EmbeddingsError(scrub(`Embeddings provider unreachable: ${reason}`, config.apiKey), !tooLarge);
  }
  if (!response.ok) {
    const message = `Embeddings provider answered ${response.status}: ${response.text.slice(0, 300)}`;
    const retryable = response.status === 429 || response.status >= 500;
    throw new EmbeddingsError(scrub(message, config.apiKey), retryable);
  }
  let parsed: z.infer<typeof embeddingsAnswer>;
  try {
    parsed = embeddingsAnswer.parse(JSON.parse(response.text));
  } catch {
    throw new EmbeddingsError(
      'Embeddings provider answered something other than a list of embeddings',
      false,
    );
  }
  const vectors: number[][] = [];
  for (const d of parsed.data) vectors[d.index] = d.embedding;
  if (vectors.length !== texts.length || texts.some((_, i) => !vectors[i]))
    throw new EmbeddingsError(
      `Embeddings provider answered ${parsed.data.length} vectors for ${texts.length} texts`,
      false,
    );
  const dims = vectors[0]!.length;
  if (vectors.some((v) => v.length !== dims))
    throw new EmbeddingsError('Embeddings provider answered vectors of different lengths', false);
  return vectors;
}

/**
 * The vectors of `texts`, in order, from the configured provider: EMBEDDING_BATCH_SIZE texts a
 * request, one request after the other; each request within `timeoutMs` (default
 * ANSWER_LIMITS.embeddings). Fails with EmbeddingsError; the key never appears in its message.
 */
export async function embedTexts(
  config: EmbeddingsConfig,
  texts: string[],
  timeoutMs: number = ANSWER_LIMITS.embeddings.timeoutMs,
): Promise<number[][]> {
  const vectors: number[][] = [];
  for (let start = 0; start < texts.length; start += EMBEDDING_BATCH_SIZE)
    vectors.push(...(await embedBatch(config, texts.slice(start, start + EMBEDDING_BATCH_SIZE), timeoutMs)));
  return vectors;
}

/** A vector as pgvector's text form (`[0.1,0.2]`), for a `?::vector` parameter. */
export function vectorLiteral(vector: number[]): string {
  return `[${vector.join(',')}]`;
}

/** The text of a chunk that is embedded: its heading (where it sits) and its text. */
export function chunkEmbeddingText(chunk: { heading: string | null; text: string }): string {
  return chunk.heading ? `${chunk.heading}\n\n${chunk.text}` : chunk.text;
}

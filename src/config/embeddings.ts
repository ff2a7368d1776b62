import { z } from 'zod';

const optionalString = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === '' ? undefined : v.trim()));

/** The variables, for the environment schema (docs/knowledge.md "Hybrid retrieval"). */
export const embeddingsEnv = {
  EMBEDDINGS_BASE_URL: optionalString.pipe(
    z.url({ protocol: /^https?$/, error: 'must be an http or https URL' }).optional(),
  ),
  EMBEDDINGS_API_KEY: optionalString,
  EMBEDDINGS_MODEL: z.string().min(1).default('text-embedding-3-small'),
  EMBEDDINGS_DIMENSIONS: z.coerce.number().int().min(1).max(16_000).optional(),
  EMBEDDINGS_QUERY_TIMEOUT_MS: z.coerce.number().int().min(10).max(5000).default(150),
};

/**
 * An OpenAI-compatible embeddings provider (`POST {baseUrl}/embeddings`; `baseUrl` includes the API
 * version, as LLM_BASE_URL does: `https://api.openai.com/v1`). With it (and the `vector` extension),
 * chunks are embedded at ingestion and retrieval is hybrid. `dimensions`, when set, is sent to the
 * provider (the text-embedding-3 models shorten their vectors to it); `queryTimeoutMs` bounds the
 * embedding of a question, past which retrieval is full-text only.
 */
export interface EmbeddingsConfig {
  baseUrl: string;
  apiKey?: string;
  model: string;
  dimensions?: number;
  queryTimeoutMs: number;
}

export function embeddingsConfig(e: {
  EMBEDDINGS_BASE_URL?: string;
  EMBEDDINGS_API_KEY?: string;
  EMBEDDINGS_MODEL: string;
  EMBEDDINGS_DIMENSIONS?: number;
  EMBEDDINGS_QUERY_TIMEOUT_MS: number;
}): EmbeddingsConfig | undefined {
  if (!e.EMBEDDINGS_BASE_URL) return undefined;
  return {
    baseUrl: e.EMBEDDINGS_BASE_URL,
    apiKey: e.EMBEDDINGS_API_KEY,
    model: e.EMBEDDINGS_MODEL,
    dimensions: e.EMBEDDINGS_DIMENSIONS,
    queryTimeoutMs: e.EMBEDDINGS_QUERY_TIMEOUT_MS,
  };
}

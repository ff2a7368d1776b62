/**
 * The PostgreSQL text-search configurations a knowledge base may use (its `language`): each stems and
 * drops stop words for one language; `simple` does neither (any language, exact words). A fixed list,
 * so the value can be cast to `regconfig` safely.
 */
export const KNOWLEDGE_LANGUAGES = [
  'simple',
  'arabic',
  'danish',
  'dutch',
  'english',
  'finnish',
  'french',
  'german',
  'greek',
  'hungarian',
  'indonesian',
  'irish',
  'italian',
  'lithuanian',
  'nepali',
  'norwegian',
  'portuguese',
  'romanian',
  'russian',
  'spanish',
  'swedish',
  'tamil',
  'turkish',
] as const;
export type KnowledgeLanguage = (typeof KNOWLEDGE_LANGUAGES)[number];

export const DEFAULT_KNOWLEDGE_LANGUAGE: KnowledgeLanguage = 'english';

/** A source's status: `pending` until its workflow picks it up, `indexing`, then `ready` or `failed`. */
export const SOURCE_STATUSES = ['pending', 'indexing', 'ready', 'failed'] as const;
export type SourceStatus = (typeof SOURCE_STATUSES)[number];

export const SOURCE_TYPES = ['text', 'url', 'file'] as const;
export type SourceType = (typeof SOURCE_TYPES)[number];

/** The largest file a source may upload (the extraction's own limit). */
export const MAX_UPLOAD_BYTES = 20 * 1024 * 1024;
/** The most characters a `text` source may carry. */
export const MAX_TEXT_SOURCE_CHARS = 1_000_000;
/** The most bases one persona names. */
export const MAX_PERSONA_BASES = 10;

import { z } from 'zod';
import { envelopeOf, pagedEnvelopeOf, paginationQuery, timestamp } from '../http/envelope';
import {
  DEFAULT_KNOWLEDGE_LANGUAGE,
  KNOWLEDGE_LANGUAGES,
  MAX_TEXT_SOURCE_CHARS,
  SOURCE_STATUSES,
  SOURCE_TYPES,
} from './languages';

const name = () => z.string().trim().min(1).max(200);
const description = () => z.string().max(2000).nullable().optional();

export const CreateKnowledgeBaseBody = z
  .strictObject({
    name: name(),
    description: description(),
    language: z
      .enum(KNOWLEDGE_LANGUAGES)
      .default(DEFAULT_KNOWLEDGE_LANGUAGE)
      .meta({ description: 'The PostgreSQL text-search configuration its chunks are searched with' }),
  })
  .meta({ id: 'CreateKnowledgeBaseRequest' });
export type CreateKnowledgeBaseInput = z.infer<typeof CreateKnowledgeBaseBody>;

export const UpdateKnowledgeBaseBody = z
  .strictObject({
    name: name(),
    description: description(),
    language: z.enum(KNOWLEDGE_LANGUAGES).optional().meta({
      description: 'Changing it re-indexes nothing by itself: refresh the sources to search them with it',
    }),
  })
  .meta({ id: 'UpdateKnowledgeBaseRequest' });
export type UpdateKnowledgeBaseInput = z.infer<typeof UpdateKnowledgeBaseBody>;

export const ListKnowledgeBasesQuery = z.strictObject({ ...paginationQuery });
export const ListSourcesQuery = z.strictObject({
  status: z.enum(SOURCE_STATUSES).optional(),
  ...paginationQuery,
});
export type ListSourcesInput = z.infer<typeof ListSourcesQuery>;

export const KnowledgeBaseIdParams = z.object({ id: z.string().max(64) });
export const SourceIdParams = z.object({ id: z.string().max(64), sourceId: z.string().max(64) });

const httpUrl = z
  .string()
  .max(2000)
  .url()
  .refine((u) => /^https?:\/\//i.test(u), 'must be an http(s) URL');

export const CreateSourceBody = z
  .discriminatedUnion('type', [
    z.strictObject({
      type: z.literal('text'),
      name: name(),
      text: z.string().min(1).max(MAX_TEXT_SOURCE_CHARS),
    }),
    z.strictObject({
      type: z.literal('url'),
      url: httpUrl,
      name: name().optional(),
      crawl: z
        .strictObject({
          maxDepth: z.number().int().min(0).max(3).default(0),
          maxPages: z.number().int().min(1).max(200).default(1),
        })
        .optional()
        .meta({ description: 'Links followed from the page (on its own site): how deep, how many pages' }),
    }),
    z.strictObject({
      type: z.literal('file').meta({
        description:
          'Sent as multipart/form-data with one `file` part (PDF, DOCX, HTML, Markdown or text, up to 20 MB), not as JSON',
      }),
    }),
  ])
  .meta({ id: 'CreateKnowledgeSourceRequest' });
export type CreateSourceInput = z.infer<typeof CreateSourceBody>;

export const SearchQuery = z.strictObject({
  q: z.string().trim().min(1).max(500).meta({ description: 'Words; "a phrase" in quotes; -word to exclude' }),
  limit: z.coerce.number().int().min(1).max(50).default(5),
});

export const KnowledgeBaseRecord = z
  .object({
    id: z.string().meta({ example: 'kb_4hQm…' }),
    name: z.string(),
    description: z.string().nullable(),
    language: z.enum(KNOWLEDGE_LANGUAGES),
    createdAt: timestamp(),
    updatedAt: timestamp(),
  })
  .meta({ id: 'KnowledgeBase' });

export const KnowledgeSourceRecord = z
  .object({
    id: z.string().meta({ example: 'ks_8fQm…' }),
    knowledgeBaseId: z.string(),
    type: z.enum(SOURCE_TYPES),
    name: z.string(),
    url: z.string().nullable(),
    crawl: z.object({ maxDepth: z.number().int(), maxPages: z.number().int() }).nullable(),
    contentType: z.string().nullable(),
    status: z.enum(SOURCE_STATUSES),
    failureReason: z.string().nullable().meta({ description: 'Why it failed, in plain words' }),
    chunks: z.number().int().meta({ description: 'Chunks searched now' }),
    bytes: z.number().int().meta({ description: 'Size of its content (file, text or fetched page)' }),
    indexedAt: timestamp().nullable(),
    createdAt: timestamp(),
    updatedAt: timestamp(),
  })
  .meta({ id: 'KnowledgeSource' });

export const SearchHit = z
  .object({
    sourceId: z.string(),
    sourceName: z.string(),
    heading: z.string().nullable(),
    text: z.string(),
    score: z.number(),
  })
  .meta({ id: 'KnowledgeSearchHit' });

export const KnowledgeBaseEnvelope = envelopeOf(KnowledgeBaseRecord);
export const KnowledgeBaseList = pagedEnvelopeOf(KnowledgeBaseRecord);
export const KnowledgeSourceEnvelope = envelopeOf(KnowledgeSourceRecord);
export const KnowledgeSourceList = pagedEnvelopeOf(KnowledgeSourceRecord);
export const SearchResults = envelopeOf(z.array(SearchHit));
export const Deleted = envelopeOf(z.object({ deleted: z.literal(true), id: z.string() }));

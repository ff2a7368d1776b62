import type { EntityManager } from '@mikro-orm/postgresql';
import type { Owner } from '../common/owner';
import { findKnowledgeBase } from './knowledge-bases.service';
import { type RetrievalOptions, retrieveChunks } from './retrieval';

/**
 * GET /knowledge-bases/:id/search: the base's current chunks (each source's current generation only,
 * so a refresh under way never shows a mix) matching `websearch_to_tsquery` (words, "phrases", -not)
 * OR the words as prefixes, ranked by `ts_rank_cd` (cover density: matches close together rank
 * higher; headings weigh more than text), best first: the same retrieval a turn uses
 * (src/knowledge/retrieval.ts), hybrid when `options.embeddings` is set and pgvector is there.
 */
export async function searchKnowledgeBase(
  em: EntityManager,
  owner: Owner,
  id: string,
  q: string,
  limit: number,
  options: RetrievalOptions = {},
) {
  const base = await findKnowledgeBase(em, owner, id);
  const hits = await retrieveChunks(em.getConnection().getKnex(), owner, [base.id], q, limit, options);
  return hits.map((h) => ({
    sourceId: h.sourceId,
    sourceName: h.sourceName,
    heading: h.heading,
    text: h.text,
    score: h.score,
  }));
}

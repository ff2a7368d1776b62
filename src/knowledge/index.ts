/**
 * Knowledge bases (issue 43, docs/knowledge.md): bases, their sources, each source's ingestion
 * workflow and full-text search. Other areas and the composition root reach it only through this file
 * (text extraction: ./extract, chunking: ./chunking).
 */

export { chunkDocument } from './chunking';
export { KnowledgeBaseSchema, KnowledgeSourceSchema } from './knowledge.entity';
export { mountKnowledgeRoutes } from './knowledge.routes';
export { personaBaseProblems } from './knowledge-bases.service';
export { createKnowledgeOutboxHandler } from './outbox';
export { type RetrievedChunk, retrieveChunks } from './retrieval';
export { searchKnowledgeBase } from './search';
export { isKnowledgeUpload } from './uploads';

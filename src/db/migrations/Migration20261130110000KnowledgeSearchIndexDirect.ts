import { Migration } from '@mikro-orm/migrations';

/**
 * The chunks' full-text index takes each new chunk straight into its tree (`fastupdate = off`).
 * With GIN's default pending list, chunks written since the last vacuum sat in an unordered list
 * that every search read whole: after a 20 000-chunk ingestion, 4 578 entries on 306 pages, 8–10 ms
 * of each search's index scan against 1.4 ms once merged (docs/knowledge.md "Retrieval"). A search
 * is on a call's path to its first audio; an ingestion is not, and pays the merge as it writes.
 * Entries already pending are merged now.
 */
export class Migration20261130110000KnowledgeSearchIndexDirect extends Migration {
  override async up(): Promise<void> {
    this.addSql('alter index "knowledge_chunks_search_index" set (fastupdate = off);');
    this.addSql(`select gin_clean_pending_list('knowledge_chunks_search_index'::regclass);`);
  }

  override async down(): Promise<void> {
    this.addSql('alter index "knowledge_chunks_search_index" reset (fastupdate);');
  }
}

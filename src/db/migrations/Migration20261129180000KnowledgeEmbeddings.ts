import { Migration } from '@mikro-orm/migrations';

/**
 * Hybrid knowledge retrieval (docs/knowledge.md "Hybrid retrieval"): the `vector` extension
 * (pgvector; PGlite loads it, a PostgreSQL server needs it installed: scripts/install-pgvector.sh),
 * created when the server has it, and then a chunk's `embedding`. The column is `vector` without a
 * dimension, so any provider's vectors fit (a search compares only vectors of the question's
 * length); no vector index: a question's search is an exact scan of its bases' current chunks.
 * Without the extension nothing is added and retrieval stays full-text.
 */
export class Migration20261129180000KnowledgeEmbeddings extends Migration {
  override async up(): Promise<void> {
    this.addSql(`do $$
begin
  begin
    create extension if not exists vector;
  exception when others then
    raise notice 'the vector extension is not available (%): knowledge retrieval stays full-text', sqlerrm;
  end;
  if exists (select 1 from pg_extension where extname = 'vector') then
    alter table "knowledge_chunks" add column if not exists "embedding" vector null;
  end if;
end
$$;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "knowledge_chunks" drop column if exists "embedding";`);
  }
}

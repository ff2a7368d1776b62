import type { MutationTable } from '../concurrent-mutations';
import { expectOneOf, successes } from '../concurrent-mutations';
import { type BaseEnv, count, ok, rows, unique, v2 } from './fixtures';
import { P } from './platform-fixtures';

async function base(env: BaseEnv): Promise<string> {
  const res = await ok(
    v2(env, 'POST', '/knowledge-bases', { name: unique('race-kb') }),
    'create knowledge base',
  );
  return res.body.data.id as string;
}

/** A text source of a new base, waited for until `ready` when `ready` (the run's worker ingests it). */
async function source(env: BaseEnv, ready = false): Promise<{ baseId: string; id: string }> {
  const baseId = await base(env);
  const created = await ok(
    v2(env, 'POST', `/knowledge-bases/${baseId}/sources`, {
      type: 'text',
      name: 'race',
      text: '# Race\n\nRacing.',
    }),
    'add source',
  );
  const id = created.body.data.id as string;
  for (let waited = 0; ready; waited += 100) {
    const status = (await v2(env, 'GET', `/knowledge-bases/${baseId}/sources/${id}`)).body.data.status;
    if (status === 'ready') break;
    if (waited > 30_000) throw new Error(`source ${id} is still ${status}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return { baseId, id };
}

/** Knowledge bases and their sources (docs/knowledge.md). */
export const platformKnowledgeCases: MutationTable<BaseEnv> = {
  'POST /api/v2/developers/knowledge-bases': {
    kind: 'create',
    prepare: async (env) => {
      const name = unique('race-kb');
      return {
        request: { method: 'POST', path: `${P}/knowledge-bases`, token: env.dev.liveKey, body: { name } },
        check: async (answers) => {
          const created = await count(env.app, 'select count(*) from knowledge_bases where name = ?', [name]);
          expect(successes(answers)).toHaveLength(created);
        },
      };
    },
  },
  'PUT /api/v2/developers/knowledge-bases/{id}': {
    kind: 'replace',
    prepare: async (env) => {
      const id = await base(env);
      return {
        request: {
          method: 'PUT',
          path: `${P}/knowledge-bases/${id}`,
          token: env.dev.liveKey,
          body: { name: 'Renamed', language: 'german' },
        },
        check: async (answers) => {
          const current = (await v2(env, 'GET', `/knowledge-bases/${id}`)).body.data;
          expectOneOf({ name: current.name, language: current.language }, answers, (r) => ({
            name: r.name,
            language: r.language,
          }));
        },
      };
    },
  },
  'DELETE /api/v2/developers/knowledge-bases/{id}': {
    kind: 'delete',
    prepare: async (env) => {
      const { baseId } = await source(env);
      return {
        request: { method: 'DELETE', path: `${P}/knowledge-bases/${baseId}`, token: env.dev.liveKey },
        check: async () => {
          expect(
            await count(env.app, 'select count(*) from knowledge_sources where knowledge_base_id = ?', [
              baseId,
            ]),
          ).toBe(0);
        },
      };
    },
  },
  'POST /api/v2/developers/knowledge-bases/{id}/sources': {
    kind: 'create',
    prepare: async (env) => {
      const baseId = await base(env);
      return {
        request: {
          method: 'POST',
          path: `${P}/knowledge-bases/${baseId}/sources`,
          token: env.dev.liveKey,
          body: { type: 'text', name: 'same', text: 'Same text.' },
        },
        check: async (answers) => {
          const sql = 'select count(*) from knowledge_sources where knowledge_base_id = ?';
          expect(successes(answers)).toHaveLength(await count(env.app, sql, [baseId]));
          // each with its one document
          const docs =
            'select count(*) from knowledge_source_documents d join knowledge_sources s on s.id = d.source_id where s.knowledge_base_id = ?';
          expect(await count(env.app, docs, [baseId])).toBe(successes(answers).length);
        },
      };
    },
  },
  'DELETE /api/v2/developers/knowledge-bases/{id}/sources/{sourceId}': {
    kind: 'delete',
    prepare: async (env) => {
      const { baseId, id } = await source(env, true);
      return {
        request: {
          method: 'DELETE',
          path: `${P}/knowledge-bases/${baseId}/sources/${id}`,
          token: env.dev.liveKey,
        },
        check: async () => {
          expect(
            await count(env.app, 'select count(*) from knowledge_chunks where source_id = ?', [id]),
          ).toBe(0);
        },
      };
    },
  },
  'POST /api/v2/developers/knowledge-bases/{id}/sources/{sourceId}/refresh': {
    kind: 'action',
    prepare: async (env) => {
      const { baseId, id } = await source(env, true);
      return {
        request: {
          method: 'POST',
          path: `${P}/knowledge-bases/${baseId}/sources/${id}/refresh`,
          token: env.dev.liveKey,
        },
        alsoAllowed: [409], // a refresh under way
        check: async (answers) => {
          // one refresh started, one generation further
          expect(successes(answers)).toHaveLength(1);
          const [row] = await rows(env.app, 'select ingest_generation from knowledge_sources where id = ?', [
            id,
          ]);
          expect(row.ingest_generation).toBe(2);
        },
      };
    },
  },
};

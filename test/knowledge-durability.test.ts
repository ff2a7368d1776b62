import type { ChildProcess } from 'node:child_process';
import { Client } from 'pg';
import { TEST_ENV } from './support/env';
import { type KnowledgeRig, startKnowledgeRig } from './support/knowledge';
import { spawnWorker, stopProcess, workerProcessEnv } from './support/resilience';

/** A long handbook: 600 sections, each its own chunk, so indexing takes a while. */
const LONG_HANDBOOK = Array.from(
  { length: 600 },
  (_, i) =>
    `## Procedure ${i}\n\n${`Procedure ${i} says the duty manager signs form ${i} before the shift ends. `.repeat(6)}`,
).join('\n\n');

async function eventually<T>(probe: () => Promise<T | false | undefined>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = await probe();
    if (found) return found;
    if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * A source's ingestion survives its worker (issue 43, docs/knowledge.md "Ingestion", "What is
 * durable, and why"): the worker process is SIGKILLed in the last step, after every chunk was
 * written and while the step waits to make them current (held there by a row lock another
 * connection takes); a new worker resumes the workflow. One generation of chunks, as many as a
 * clean ingestion of the same text writes, the source ready, and one `knowledge.source.ready`.
 */
describe('a worker killed mid-ingestion', () => {
  const queue = `vp-kbkill-${process.pid}`;
  const env = {
    NODE_ENV: 'test',
    DATABASE_URL: TEST_ENV.databaseUrl(),
    TEMPORAL_ADDRESS: TEST_ENV.temporalAddress(),
    TEMPORAL_TASK_QUEUE: queue,
  };
  let rig: KnowledgeRig;
  let first: ChildProcess | undefined;
  let second: ChildProcess | undefined;
  let locker: Client | undefined;
  beforeAll(async () => {
    rig = await startKnowledgeRig(env, { worker: false });
  }, 60_000);
  afterAll(async () => {
    await locker?.end().catch(() => undefined);
    await stopProcess(first, 'SIGKILL');
    await stopProcess(second, 'SIGTERM');
    await rig?.stop();
  });

  const sql = async (query: string, bindings: unknown[] = []) =>
    rig.app.ctx.orm.em.getConnection().execute(query, bindings);

  it('leaves one set of chunks, as many as a clean ingestion, and the source ready', async () => {
    const workerEnv = workerProcessEnv(env, 'kbkill');
    first = spawnWorker(workerEnv);
    const baseId = (await rig.api('POST', '/knowledge-bases', { name: 'Procedures' })).body.data.id;
    const add = async (name: string) =>
      (
        await rig.api('POST', `/knowledge-bases/${baseId}/sources`, {
          type: 'text',
          name,
          text: LONG_HANDBOOK,
        })
      ).body.data.id as string;
    // a clean ingestion of the same text, by the first worker (once it polls)
    const clean = await rig.waitForSource(baseId, await add('Clean'), ['ready', 'failed'], 150_000);
    expect(clean.status).toBe('ready');
    expect(clean.chunks).toBeGreaterThanOrEqual(600);

    // a connection of the test's own, to hold the source's row
    locker = new Client({ connectionString: env.DATABASE_URL });
    await locker.connect();
    const lockerPid = (await locker.query('select pg_backend_pid() as pid')).rows[0].pid as number;
    const id = await add('Killed');
    await eventually(
      async () =>
        (await sql('select status from knowledge_sources where id = ?', [id]))[0].status === 'indexing',
      30_000,
    );
    // held before the last step: its update of the source waits for this lock (chunks can still be written)
    await locker.query('begin');
    await locker.query('select id from knowledge_sources where id = $1 for no key update', [id]);
    const [held] = await sql('select status from knowledge_sources where id = ?', [id]);
    expect(held.status).toBe('indexing');
    await eventually(async () => {
      const [waiting] = await sql(
        `select count(*)::int as n from pg_stat_activity
          where ? = any(pg_blocking_pids(pid)) and query like '%set status = ''ready''%'`,
        [lockerPid],
      );
      return waiting.n > 0;
    }, 60_000);
    // mid-way: every chunk written under generation 1, none of it current yet
    expect(
      await sql(
        'select generation, count(*)::int as n from knowledge_chunks where source_id = ? group by 1',
        [id],
      ),
    ).toEqual([{ generation: 1, n: clean.chunks }]);
    await stopProcess(first, 'SIGKILL');
    first = undefined;
    await locker.query('rollback');
    await locker.end();
    locker = undefined;
    await new Promise((r) => setTimeout(r, 1_000));
    // the killed worker's last step did not commit
    expect((await sql('select status from knowledge_sources where id = ?', [id]))[0].status).toBe('indexing');

    second = spawnWorker(workerEnv);
    // the step is run again once its attempt times out (30 s) on the new worker
    const ready = await rig.waitForSource(baseId, id, ['ready', 'failed'], 150_000);
    expect(ready).toMatchObject({ status: 'ready', chunks: clean.chunks, failureReason: null });
    expect(
      await sql(
        'select generation, count(*)::int as n from knowledge_chunks where source_id = ? group by 1',
        [id],
      ),
    ).toEqual([{ generation: 1, n: clean.chunks }]);
    const events = await sql(
      "select type from events where type like 'knowledge.source.%' and payload::jsonb->'data'->>'sourceId' = ?",
      [id],
    );
    expect(events).toEqual([{ type: 'knowledge.source.ready' }]);
    const hits = await rig.api(
      'GET',
      `/knowledge-bases/${baseId}/search?q=${encodeURIComponent('"form 417"')}`,
    );
    expect(hits.body.data.map((h: { sourceName: string }) => h.sourceName).sort()).toEqual([
      'Clean',
      'Killed',
    ]);
  }, 300_000);
});

import knexFactory from 'knex';
import { retrieveChunks } from '../src/knowledge/retrieval';
import { TURN_KNOWLEDGE_CHUNKS } from '../src/sessions/turn/knowledge-turn';
import { completeManifest } from '../test/support/personas';
import { benchQuestions, seedCorpus } from './knowledge-corpus';
import { latencyStats } from './support';
import { openCall, type TimedTurn, timedTurn } from './voice-clients';

/**
 * bench:voice's knowledge phase (BENCH_PHASES=knowledge runs it alone): a turn of a persona whose
 * agent answers from a knowledge base of BENCH_KNOWLEDGE_CHUNKS chunks (20 000: bench:knowledge's
 * corpus) against the same turn of a persona without one, interleaved on two live streams, time to
 * first audio for each; and, in the same run, the retrieval alone (`retrieveChunks` on the same
 * database, the turn's own call) over the same questions. Target: the knowledge turn's p95 is at
 * most the retrieval's p95 + 5 ms above the plain turn's.
 */

const CHUNKS = Number(process.env.BENCH_KNOWLEDGE_CHUNKS ?? 20_000);
const WARMUP = 10;

type Request = (method: string, path: string, auth: string, body?: unknown) => Promise<any>;

interface Deps {
  token: string;
  key: string;
  request: Request;
  databaseUrl: string;
  turns: number;
}

export async function knowledgeVoiceTurns(base: string, deps: Deps): Promise<void> {
  const { token, key, request } = deps;
  const progress = (what: string) => process.stderr.write(`bench:voice: ${what}\n`);
  const knowledgeBase = (
    await request('POST', '/api/v2/developers/knowledge-bases', key, { name: 'Bench handbook' })
  ).data;
  const knex = knexFactory({ client: 'pg', connection: deps.databaseUrl, pool: { min: 1, max: 2 } });
  try {
    const row = await knex('knowledge_bases').where({ id: knowledgeBase.id }).first();
    const owner = { accountId: row.account_id as string, environment: row.environment as 'test' };
    progress(`seeding ${CHUNKS} chunks`);
    await seedCorpus(knex, { ...owner, baseId: knowledgeBase.id, sourcePrefix: 'ks_vbench' }, CHUNKS);
    const persona = async (slug: string, bases: string[]) => {
      const manifest = completeManifest(slug);
      const body = { manifest: { ...manifest, knowledge: { ...manifest.knowledge, bases } } };
      return (await request('POST', '/api/v1/developers/personas', token, body)).persona.id as string;
    };
    const session = async (personaId: string, userId: string) =>
      (await request('POST', '/api/v2/developers/sessions', key, { personaId, userId })).data.id as string;
    const plainCall = await openCall(base, await session(await persona('bench-plain', []), 'p'), key);
    const kbPersona = await persona('bench-knowledge', [knowledgeBase.id]);
    const kbCall = await openCall(base, await session(kbPersona, 'k'), key);
    const questions = benchQuestions(deps.turns + WARMUP);
    const plain: TimedTurn[] = [];
    const withKnowledge: TimedTurn[] = [];
    progress('knowledge turns, interleaved with plain ones');
    for (const [i, question] of questions.entries()) {
      // interrupted once audio flows, as bench:voice's text turns are: the reply's playback is not measured
      const a = await timedTurn(plainCall, () => plainCall.sendText(question), { interruptAfterMs: 300 });
      const b = await timedTurn(kbCall, () => kbCall.sendText(question), { interruptAfterMs: 300 });
      if (i < WARMUP) continue;
      plain.push(a);
      withKnowledge.push(b);
    }
    plainCall.end();
    kbCall.end();
    const retrieval: number[] = [];
    for (const [i, question] of questions.entries()) {
      const t = performance.now();
      await retrieveChunks(knex, owner, [knowledgeBase.id], question, TURN_KNOWLEDGE_CHUNKS);
      if (i >= WARMUP) retrieval.push(performance.now() - t);
    }
    report(plain, withKnowledge, retrieval);
  } finally {
    await knex.destroy();
  }
}

function report(plain: TimedTurn[], withKnowledge: TimedTurn[], retrieval: number[]): void {
  const a = latencyStats(plain.map((t) => t.firstAudioMs));
  const b = latencyStats(withKnowledge.map((t) => t.firstAudioMs));
  const r = latencyStats(retrieval);
  const ms = (n: number) => `${n.toFixed(1).padStart(7)} ms`;
  const added = b.p95 - a.p95;
  console.log(`\nbench:voice — knowledge: ${plain.length} turns each, ${CHUNKS} chunks in the base`);
  console.log(`first audio, a persona without knowledge  p50 ${ms(a.p50)}   p95 ${ms(a.p95)}`);
  console.log(`first audio, the persona with its base    p50 ${ms(b.p50)}   p95 ${ms(b.p95)}`);
  console.log(`retrieval alone (the turn's call)         p50 ${ms(r.p50)}   p95 ${ms(r.p95)}`);
  console.log(
    `the base adds at p95 ${ms(added)}; target ≤ retrieval p95 + 5 ms (${ms(r.p95 + 5)}): ${added <= r.p95 + 5 ? 'met' : 'NOT met'}`,
  );
}

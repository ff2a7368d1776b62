import type { Knex } from 'knex';

/**
 * bench:knowledge's corpus (bench:voice's knowledge phase reads it too): deterministic paragraphs
 * about 20 topics in 10 places, written as chunks of 100 ready sources of one base, and questions
 * in a caller's words about them.
 */

const TOPICS = [
  'refund',
  'shipping',
  'warranty',
  'invoice',
  'battery',
  'delivery',
  'exchange',
  'account',
  'password',
  'subscription',
  'voucher',
  'repair',
  'installation',
  'charger',
  'screen',
  'keyboard',
  'printer',
  'router',
  'camera',
  'speaker',
];
const PLACES = [
  'Berlin',
  'Lisbon',
  'Oslo',
  'Madrid',
  'Dublin',
  'Vienna',
  'Prague',
  'Warsaw',
  'Athens',
  'Rome',
];
const VERBS = ['processes', 'replaces', 'ships', 'checks', 'confirms', 'repairs', 'credits', 'collects'];

/** A deterministic paragraph for chunk `i`: topic, place, model number and a few sentences. */
export function paragraph(i: number): { heading: string; text: string } {
  const topic = TOPICS[i % TOPICS.length]!;
  const place = PLACES[Math.floor(i / TOPICS.length) % PLACES.length]!;
  const verb = VERBS[i % VERBS.length]!;
  const model = `M${1000 + (i % 997)}`;
  const text = `The ${place} service desk ${verb} every ${topic} request for model ${model} within ${1 + (i % 20)} days. Customers in ${place} who ask about a ${topic} receive a confirmation email, and the team ${verb} the case again if nothing changes. Keep the receipt of the ${model} ${topic}: it is needed for any ${TOPICS[(i + 3) % TOPICS.length]} question.`;
  return { heading: `${place} > ${topic} > ${model}`, text };
}

/** Where a corpus goes: a base of an account, its sources named `<sourcePrefix><n>`. */
export interface CorpusTarget {
  accountId: string;
  environment: 'test' | 'live';
  baseId: string;
  sourcePrefix: string;
}

/** The number of sources a corpus is spread over. */
export const CORPUS_SOURCES = 100;

/** `chunks` paragraphs as the ready chunks (generation 1) of CORPUS_SOURCES sources of the base. */
export async function seedCorpus(knex: Knex, target: CorpusTarget, chunks: number): Promise<void> {
  const now = new Date();
  await knex('knowledge_sources').insert(
    Array.from({ length: CORPUS_SOURCES }, (_, s) => ({
      id: `${target.sourcePrefix}${s}`,
      account_id: target.accountId,
      environment: target.environment,
      knowledge_base_id: target.baseId,
      type: 'text',
      name: `Handbook part ${s}`,
      status: 'ready',
      generation: 1,
      ingest_generation: 1,
      chunk_count: chunks / CORPUS_SOURCES,
      created_at: now,
      updated_at: now,
    })),
  );
  for (let start = 0; start < chunks; start += 1000) {
    const rows = Array.from({ length: Math.min(1000, chunks - start) }, (_, k) => {
      const i = start + k;
      const { heading, text } = paragraph(i);
      return {
        source_id: `${target.sourcePrefix}${i % CORPUS_SOURCES}`,
        generation: 1,
        ordinal: Math.floor(i / CORPUS_SOURCES),
        knowledge_base_id: target.baseId,
        language: 'english',
        heading,
        text,
        token_estimate: Math.ceil(text.length / 4),
      };
    });
    await knex('knowledge_chunks').insert(rows);
  }
  await knex.raw('analyze knowledge_chunks');
}

/** `count` questions about the corpus: a question, a model and a topic, a word cut short. */
export function benchQuestions(count: number): string[] {
  return Array.from({ length: count }, (_, q) => {
    const { heading } = paragraph(q * 37);
    const [place, topic, model] = heading.split(' > ');
    return q % 3 === 0
      ? `How long does a ${topic} take in ${place}?`
      : q % 3 === 1
        ? `${model} ${topic}`
        : `what about my ${topic.slice(0, 5)}`;
  });
}

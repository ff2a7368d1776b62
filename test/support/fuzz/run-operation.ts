import fc from 'fast-check';
import { answerProblems, noteSent, send, type Watch } from './checks';
import { FUZZ_SHRINK, seedFor } from './config';
import type { Operation } from './openapi';
import { type RequestCase, requestCase } from './request-case';
import type { FuzzWorld } from './request-parts';

/**
 * Fuzzes one operation: `numRuns` requests from the actor, each answer checked (answerProblems).
 * Returns undefined when every answer was right, else what went wrong, the request that showed it,
 * and the seed and path that replay it.
 */
export async function fuzzOperation(
  baseUrl: string,
  op: Operation,
  world: FuzzWorld,
  watch: Watch,
  numRuns: number,
): Promise<string | undefined> {
  const seed = seedFor(op.key);
  const details = await fc.check(
    fc.asyncProperty(requestCase(op, world), async (c) => {
      noteSent(c, watch);
      const answer = await send(baseUrl, c);
      tally(op.key, c.mode, answer.status);
      const problems = answerProblems(op, c, answer, watch);
      if (problems.length > 0) {
        throw new Error(
          `${problems.join('\n    ')}\n    request: ${describeCase(c)}\n    answer: ${answer.status} ${answer.text.slice(0, 300)}`,
        );
      }
    }),
    { seed, numRuns, endOnFailure: !FUZZ_SHRINK },
  );
  if (!details.failed) return undefined;
  const error =
    details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance);
  return `${op.key} (seed ${seed}, path ${details.counterexamplePath}):\n    ${error}`;
}

/** A request as a line a reader can replay with curl. */
export function describeCase(c: RequestCase): string {
  const headers = Object.entries(c.headers)
    .map(([k, v]) => `${k}: ${v.length > 60 ? `${v.slice(0, 60)}…` : v}`)
    .join(' | ');
  const body = c.body === undefined ? '' : ` body(${c.body.length}) ${c.body.slice(0, 300)}`;
  return `[${c.mode}] ${c.method} ${c.url.slice(0, 300)} {${headers}}${body}`;
}

/** With FUZZ_STATS=1, the statuses each operation answered (by mode): to see what the fuzzer reaches. */
const STATS = new Map<string, Map<string, number>>();
function tally(key: string, mode: string, status: number): void {
  if (process.env.FUZZ_STATS !== '1') return;
  const counts = STATS.get(key) ?? new Map<string, number>();
  const name = `${mode}:${status}`;
  counts.set(name, (counts.get(name) ?? 0) + 1);
  STATS.set(key, counts);
}

export function printStats(): void {
  if (process.env.FUZZ_STATS !== '1') return;
  const lines = [...STATS].map(
    ([key, counts]) => `${key}  ${[...counts].map(([k, n]) => `${k}×${n}`).join(' ')}`,
  );
  console.log(lines.join('\n'));
}

/**
 * How much and what the fuzzer tries. A fixed seed by default, so every CI run sends the same
 * requests; `FUZZ_SEED` picks another (a failure report names the seed that found it), `FUZZ_RUNS`
 * scales the runs of every operation (`FUZZ_RUNS=10` for a long local hunt), and `FUZZ_SHRINK=1`
 * shrinks a failing case to a smaller one (slower: every step is a request).
 */
export const FUZZ_SEED = Number(process.env.FUZZ_SEED ?? 20261126) | 0;
const SCALE = Number(process.env.FUZZ_RUNS ?? 1);
export const FUZZ_SHRINK = process.env.FUZZ_SHRINK === '1';

/** Runs for a property whose base budget is `base` (at least one). */
export function runs(base: number): number {
  return Math.max(1, Math.round(base * (Number.isFinite(SCALE) && SCALE > 0 ? SCALE : 1)));
}

/** A test's time limit for `ms` at the default runs, stretched as FUZZ_RUNS scales them. */
export function timeLimit(ms: number): number {
  return Math.round(ms * Math.max(1, Number.isFinite(SCALE) ? SCALE : 1));
}

/** The seed of one property: the run's seed mixed with its name, so adding a property moves no other. */
export function seedFor(name: string): number {
  let hash = FUZZ_SEED;
  for (const char of name) hash = (Math.imul(hash, 31) + char.charCodeAt(0)) | 0;
  return hash;
}

export function announce(what: string): void {
  console.log(
    `${what}: FUZZ_SEED=${FUZZ_SEED} FUZZ_RUNS=${process.env.FUZZ_RUNS ?? 1} (set them to replay or to search longer)`,
  );
}

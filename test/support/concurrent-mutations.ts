import { type ApiResponse, call } from './test-app';

/**
 * The generic race test of issue 26 ("Races on anything unique"): every mutating operation of the
 * OpenAPI document is driven with CONCURRENCY identical requests at once. Each operation has a case
 * in a table (test/support/mutation-cases/*.ts) that prepares what the request needs and says what
 * the state must be afterwards; the kind of the operation decides what its answers may be.
 */
export const CONCURRENCY = 10;

/** `METHOD /path/{param}`, as the OpenAPI document names an operation. */
export type OperationKey = string;

export interface MutationRequest {
  method: 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  token?: string;
  headers?: Record<string, string>;
  body?: unknown;
}

/**
 * - `delete`: a delete, revoke or uninstall: exactly one 2xx, every other answer 404 (or a status of
 *   `alsoAllowed`, where the contract documents it);
 * - `replace`: a PUT: every answer 2xx (or `alsoAllowed`);
 * - `create`: every 2xx created one resource (`check` counts them), or a documented 4xx (`alsoAllowed`);
 * - `action`: every answer 2xx (or `alsoAllowed`), and the state matches the answers (`check`).
 */
export type MutationKind = 'delete' | 'replace' | 'create' | 'action';

export interface PreparedMutation {
  request: MutationRequest;
  /** Statuses besides 2xx (and, for a delete, 404) that the contract documents for this race. */
  alsoAllowed?: number[];
  /** The state after the race, given every answer (in the order the requests were sent). */
  check(answers: ApiResponse[]): Promise<void>;
}

export interface MutationCase<Env> {
  kind: MutationKind;
  prepare(env: Env): Promise<PreparedMutation>;
}

export type MutationTable<Env> = Record<OperationKey, MutationCase<Env>>;

const MUTATING = ['post', 'put', 'patch', 'delete'];

/** Every mutating operation of an OpenAPI document, as `METHOD /path`. */
export function mutatingOperations(document: { paths: Record<string, Record<string, unknown>> }): string[] {
  return Object.entries(document.paths)
    .flatMap(([path, operations]) =>
      Object.keys(operations)
        .filter((method) => MUTATING.includes(method))
        .map((method) => `${method.toUpperCase()} ${path}`),
    )
    .sort();
}

export const is2xx = (status: number) => status >= 200 && status < 300;
export const successes = (answers: ApiResponse[]) => answers.filter((a) => is2xx(a.status));

/** What every answer of a race may be, by the operation's kind. */
function allowedStatus(kind: MutationKind, status: number, alsoAllowed: number[]): boolean {
  if (is2xx(status) || alsoAllowed.includes(status)) return true;
  return kind === 'delete' && status === 404;
}

/** Fires the prepared request CONCURRENCY times at once and checks the answers and the state after. */
export async function raceMutation<Env>(
  baseUrl: string,
  mutation: MutationCase<Env>,
  env: Env,
): Promise<ApiResponse[]> {
  const prepared = await mutation.prepare(env);
  const { method, path, token, headers, body } = prepared.request;
  const answers = await Promise.all(
    Array.from({ length: CONCURRENCY }, () => call(baseUrl, method, path, { token, headers, body })),
  );
  const seen = answers.map((a) => `${a.status} ${a.status >= 300 ? JSON.stringify(a.body) : ''}`);
  const alsoAllowed = prepared.alsoAllowed ?? [];
  // never a 5xx, and nothing the kind of operation does not allow
  expect(seen.filter((s) => !allowedStatus(mutation.kind, Number(s.slice(0, 3)), alsoAllowed))).toEqual([]);
  const statuses = answers.map((a) => a.status);
  if (mutation.kind === 'delete') expect(statuses.filter(is2xx)).toHaveLength(1);
  if (mutation.kind !== 'create' && mutation.kind !== 'delete') {
    expect(statuses.filter(is2xx).length).toBeGreaterThan(0);
  }
  await prepared.check(answers);
  return answers;
}

/** One test per operation of the table. `env` is read when the test runs (after beforeAll). */
export function raceEveryOperation<Env>(
  table: MutationTable<Env>,
  app: () => { baseUrl: string },
  env: () => Env,
) {
  for (const [operation, mutation] of Object.entries(table)) {
    it(`${operation} (${mutation.kind}): ${CONCURRENCY} identical requests at once`, async () => {
      await raceMutation(app().baseUrl, mutation, env());
    });
  }
}

/** The JSON body a 2xx answer's resource is in: `data` on the platform API, the body elsewhere. */
export const dataOf = (answer: ApiResponse) => (answer.body?.data ?? answer.body) as Record<string, any>;

/**
 * For a PUT: the resource as a later read shows it equals the resource of one of the answers, on the
 * fields `pick` takes from both.
 */
export function expectOneOf<T>(current: T, answers: ApiResponse[], pick: (r: any) => T): void {
  const answered = successes(answers).map((a) => pick(dataOf(a)));
  expect(answered).toContainEqual(current);
}

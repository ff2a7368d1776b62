import createClient from 'openapi-fetch';
import { endOperatorSession, operatorToken } from '../auth/operator';
import { currentSession, endSession, signOutReason } from '../auth/session';
import { storedValue } from '../store';
import type { paths } from './schema';

/** Which environment's platform data the console shows (and which key it uses for /api/v2). */
export type Environment = 'live' | 'test';
export const environmentStore = storedValue<Environment>(
  () => localStorage,
  'vp.console.environment',
  'live',
);

/** The signed-in account (from GET /me), set by the layout; marketplace calls identify with it. */
export interface Account {
  publisherId: string;
  email: string | null;
  plan: string;
  /** An operator marked this console user as reviewer: the console shows them the review queue. */
  reviewer?: boolean;
}
let account: Account | null = null;
let accountWaiters: { resolve(value: Account): void; reject(error: unknown): void }[] = [];
export const setAccount = (value: Account | null) => {
  account = value;
  if (value) {
    for (const waiter of accountWaiters) waiter.resolve(value);
    accountWaiters = [];
  }
};
/** GET /me failed: the calls waiting for the account fail with its error (they are retried with it). */
export const accountFailed = (error: unknown) => {
  for (const waiter of accountWaiters) waiter.reject(error);
  accountWaiters = [];
};
/** The account once GET /me answered (pages render before it; only platform and marketplace calls wait). */
const accountReady = (): Promise<Account> =>
  account
    ? Promise.resolve(account)
    : new Promise((resolve, reject) => accountWaiters.push({ resolve, reject }));

/**
 * The console calls the platform API (/api/v2) with the developer's ID token and the environment in
 * ENVIRONMENT_HEADER: no API key is made for the browser, and its calls spend from the console's own
 * rate-limit budget, never from that of the account's keys (docs/api-contract.md "Rate limits").
 * Earlier consoles made keys named `Web console` and kept them in localStorage: the keys page marks
 * those this browser still holds, and signing out revokes them.
 */
export const CONSOLE_KEY_NAME = 'Web console';

/**
 * The environment of a /api/v2 call (the server reads it with the ID token): the one a request names,
 * else the header switch's (test calls always run in the test environment).
 */
export const ENVIRONMENT_HEADER = 'X-Console-Environment';

interface HeldKey {
  id: string;
  fullKey: string;
}

const keyStorageName = (env: Environment, of = account) =>
  `vp.console.key.${of?.publisherId ?? 'unknown'}.${env}`;

export function heldConsoleKeyIds(): string[] {
  return (['live', 'test'] as const)
    .map((env) => localStorage.getItem(keyStorageName(env)))
    .filter((raw): raw is string => raw !== null)
    .map((raw) => (JSON.parse(raw) as HeldKey).id);
}

/** Signs out: revokes the platform keys earlier consoles kept here, forgets them and the ID token. */
export async function signOut(): Promise<void> {
  await Promise.all(
    heldConsoleKeyIds().map((id) =>
      api.DELETE('/api/v1/developers/keys/{id}', { params: { path: { id } } }).catch(() => undefined),
    ),
  );
  for (const env of ['live', 'test'] as const) localStorage.removeItem(keyStorageName(env));
  setAccount(null);
  endOperatorSession();
  endSession();
}

/** The environment of a /api/v2 call: the one its request names (ENVIRONMENT_HEADER), else the switch's. */
function environmentOf(request: Request): Environment {
  const named = request.headers.get(ENVIRONMENT_HEADER);
  return named === 'live' || named === 'test' ? named : environmentStore.get();
}

async function authorized(request: Request): Promise<Request> {
  const url = new URL(request.url);
  const headers = new Headers(request.headers);
  if (url.pathname.startsWith('/api/v2/')) {
    const session = currentSession();
    if (session) headers.set('Authorization', `Bearer ${session.idToken}`);
    headers.set(ENVIRONMENT_HEADER, environmentOf(request));
  } else if (url.pathname.startsWith('/api/marketplace/')) {
    // identity headers, as the authenticating gateway in front of /api/marketplace sets them
    const session = currentSession();
    if (session) headers.set('Authorization', `Bearer ${session.idToken}`);
    const { publisherId, email } = await accountReady();
    headers.set('x-user-id', publisherId);
    headers.set('x-publisher-id', publisherId);
    headers.set('x-publisher-name', email ?? publisherId);
  } else if (url.pathname.startsWith('/api/admin/')) {
    // the review queue: the operator's ADMIN_TOKEN when one was pasted, else a reviewer's ID token
    const token = operatorToken.get() ?? currentSession()?.idToken;
    if (token) headers.set('Authorization', `Bearer ${token}`);
  } else {
    const session = currentSession();
    if (session) headers.set('Authorization', `Bearer ${session.idToken}`);
  }
  return new Request(request, { headers });
}

/** Adds the right credentials to each call; an expired session (a 401 of the console's own calls) signs out. */
async function consoleFetch(request: Request): Promise<Response> {
  const response = await fetch(await authorized(request));
  const path = new URL(request.url).pathname;
  if (response.status === 401 && (path.startsWith('/api/v1/') || path.startsWith('/api/v2/'))) {
    endSession('Your session expired: sign in again.');
  }
  if (response.status === 401 && path.startsWith('/api/admin/') && operatorToken.get()) {
    endOperatorSession();
    signOutReason.set('The admin token was refused: sign in again.');
  }
  return response;
}

/** The API client, typed from /openapi.json (see web/src/api/schema.d.ts, generated by `npm run web:api`). */
export const api = createClient<paths>({
  baseUrl: window.location.origin,
  fetch: consoleFetch,
});

interface ErrorBody {
  error?: string;
  code?: string;
  validationErrors?: string[];
}

/** An API error body (docs/api-contract.md "Errors") as an exception: message, code and the named fields. */
export class ApiCallError extends Error {
  readonly code: string;
  readonly validationErrors: string[];
  constructor(
    body: unknown,
    readonly status: number,
    /** Seconds to wait before asking again (429 and 503 answers carry `Retry-After`). */
    readonly retryAfter: number | null = null,
  ) {
    const b = (body ?? {}) as ErrorBody;
    super(b.error ?? `Request failed (HTTP ${status})`);
    this.code = b.code ?? 'UNKNOWN';
    this.validationErrors = b.validationErrors ?? [];
  }
}

/** The data of an openapi-fetch result, or its error body thrown as an ApiCallError. */
export function unwrap<T>(result: { data?: T; error?: unknown; response: Response }): T {
  if (result.data !== undefined && result.response.ok) return result.data;
  const retryAfter = Number(result.response.headers.get('Retry-After'));
  throw new ApiCallError(
    result.error,
    result.response.status,
    Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : null,
  );
}

/** A message for any error, for alerts. */
export function errorText(error: unknown): string {
  if (error instanceof ApiCallError) {
    return error.validationErrors.length
      ? `${error.message} (${error.validationErrors.join('; ')})`
      : error.message;
  }
  return error instanceof Error ? error.message : String(error);
}

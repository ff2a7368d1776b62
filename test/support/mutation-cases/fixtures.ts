import { TEST_ADMIN_TOKEN } from '../env';
import { completeManifest } from '../personas';
import { type ApiResponse, call, type Developer, type TestApp } from '../test-app';

/** What every table's fixtures start from: the app and a developer of its own. */
export interface BaseEnv {
  app: TestApp;
  dev: Developer;
}

let serial = 0;
/** A name no other fixture of the run has (personas' slugs, marketplace ids, secret names). */
export const unique = (label: string) => `${label}-${Date.now().toString(36)}-${++serial}`;

/** Rows of a query against the run's database. */
export async function rows(app: TestApp, sql: string, params: unknown[] = []): Promise<any[]> {
  return app.ctx.orm.em.fork().getConnection().execute(sql, params);
}

/** `select count(*) … ` as a number. */
export async function count(app: TestApp, sql: string, params: unknown[] = []): Promise<number> {
  const [row] = await rows(app, sql, params);
  return Number(Object.values(row)[0]);
}

/** Asserts a setup request succeeded and gives its answer. */
export async function ok(answer: Promise<ApiResponse>, what: string): Promise<ApiResponse> {
  const res = await answer;
  if (res.status >= 300) throw new Error(`${what}: ${res.status} ${JSON.stringify(res.body)}`);
  return res;
}

export const v1 = (env: BaseEnv, method: string, path: string, body?: unknown) =>
  call(env.app.baseUrl, method, `/api/v1/developers${path}`, { token: env.dev.token, body });
export const v2 = (env: BaseEnv, method: string, path: string, body?: unknown) =>
  call(env.app.baseUrl, method, `/api/v2/developers${path}`, { token: env.dev.liveKey, body });
export const admin = (env: BaseEnv, method: string, path: string, body?: unknown) =>
  call(env.app.baseUrl, method, `/api/admin${path}`, { token: TEST_ADMIN_TOKEN, body });

/** A draft persona of the developer's (a complete manifest, a slug of its own). */
export async function draftPersona(env: BaseEnv): Promise<string> {
  const slug = unique('race');
  const res = await ok(v1(env, 'POST', '/personas', { manifest: completeManifest(slug) }), 'create persona');
  return res.body.persona.id as string;
}

/** A persona submitted for review (its review workflow running). */
export async function submittedPersona(env: BaseEnv): Promise<string> {
  const id = await draftPersona(env);
  await ok(v1(env, 'POST', `/personas/${id}/submit`), 'submit persona');
  return id;
}

/** A published persona: submitted, then approved by the operator. */
export async function publishedPersona(env: BaseEnv): Promise<string> {
  const id = await submittedPersona(env);
  await ok(admin(env, 'POST', `/personas/${id}/review`, { decision: 'approve' }), 'approve persona');
  return id;
}

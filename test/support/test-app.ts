import fs from 'node:fs';
import type http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { DestinationStream } from 'pino';
import type { ApiRoots } from '../../src/app/api-roots';
import { createApp } from '../../src/app/app';
import { buildContext, closeServer, listen } from '../../src/app/runtime';
import { signDevToken } from '../../src/auth/dev-idp';
import type { AppContext } from '../../src/common/context';
import { loadConfig } from '../../src/config/env';
import { RESPONSE_CHECK_HEADER } from '../../src/http/response-check';
import { createLogger } from '../../src/logging/logger';
import { TEST_ADMIN_TOKEN, TEST_ENCRYPTION_KEY, TEST_ENV, TEST_WEBHOOK_ENV } from './env';

export interface TestApp {
  baseUrl: string;
  ctx: AppContext;
  roots: ApiRoots;
  dataDir: string;
  close(): Promise<void>;
}

/**
 * A real API instance on a free port, against the run's database and Temporal server. Its log lines
 * go to `opts.logDestination` when given (a test that reads them), else to stdout.
 */
export async function startTestApp(
  env: Record<string, string> = {},
  opts: { logDestination?: DestinationStream } = {},
): Promise<TestApp> {
  const dataDir = env.DATA_DIR ?? fs.mkdtempSync(path.join(os.tmpdir(), 'vp-app-'));
  const config = loadConfig({
    NODE_ENV: 'test',
    DATABASE_URL: TEST_ENV.databaseUrl(),
    TEMPORAL_ADDRESS: TEST_ENV.temporalAddress(),
    TEMPORAL_TASK_QUEUE: TEST_ENV.taskQueue(),
    ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
    ADMIN_TOKEN: TEST_ADMIN_TOKEN,
    ...TEST_WEBHOOK_ENV,
    DATA_DIR: dataDir,
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    ANONYMOUS_RATE_LIMIT: '100000',
    ...env,
  });
  const logger = createLogger(config.logLevel, 'test-api', opts.logDestination);
  const ctx = await buildContext(
    config,
    logger,
    {
      databaseUrl: config.database.url!,
      poolMax: Math.min(config.database.poolMax, 5),
      temporalAddress: config.temporal.address!,
    },
    { migrate: false, registerSearchAttributes: false },
  );
  const { app, roots, streams } = createApp(ctx);
  const server: http.Server = await listen(app, '127.0.0.1', 0, streams);
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    ctx,
    roots,
    dataDir,
    close: async () => {
      await closeServer(server, streams);
      await ctx.close();
    },
  };
}

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

/** A tiny HTTP client: JSON in, JSON (or text) out. */
export async function call<T = any>(
  baseUrl: string,
  method: string,
  urlPath: string,
  opts: { token?: string; body?: unknown; rawBody?: string; headers?: Record<string, string> } = {},
): Promise<ApiResponse<T>> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  let body: string | undefined;
  if (opts.rawBody !== undefined) body = opts.rawBody;
  else if (opts.body !== undefined) body = JSON.stringify(opts.body);
  if (body !== undefined) headers['content-type'] ??= 'application/json';
  const res = await fetch(baseUrl + urlPath, { method, headers, body });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // not JSON
  }
  if (res.headers.get(RESPONSE_CHECK_HEADER)) {
    // The app found its own answer off its declared schema: fail the test that made the request.
    throw new Error(`${method} ${urlPath}: ${(parsed as { error?: string }).error ?? text}`);
  }
  return { status: res.status, headers: res.headers, body: parsed as T };
}

let developerCount = 0;

export interface Developer {
  email: string;
  token: string;
  publisherId: string;
  /** A live key with every scope. */
  liveKey: string;
  /** A test (sandbox) key with every scope. */
  testKey: string;
}

/** A fresh developer account (from a dev IdP token) with a live and a test key. */
export async function newDeveloper(app: TestApp, label = 'dev'): Promise<Developer> {
  developerCount += 1;
  const email = `${label}-${developerCount}-${Date.now()}@example.com`;
  const token = await signDevToken(app.dataDir, email);
  const me = await call(app.baseUrl, 'GET', '/api/v1/developers/me', { token });
  if (me.status !== 200) throw new Error(`me failed: ${JSON.stringify(me.body)}`);
  const live = await call(app.baseUrl, 'POST', '/api/v1/developers/keys', {
    token,
    body: { name: 'live', environment: 'live' },
  });
  const test = await call(app.baseUrl, 'POST', '/api/v1/developers/keys', {
    token,
    body: { name: 'test', environment: 'test' },
  });
  return {
    email,
    token,
    publisherId: me.body.publisherId,
    liveKey: live.body.key.fullKey,
    testKey: test.body.key.fullKey,
  };
}

export async function setPlan(app: TestApp, publisherId: string, plan: string): Promise<void> {
  const res = await call(app.baseUrl, 'PUT', `/api/admin/accounts/${publisherId}/plan`, {
    token: TEST_ADMIN_TOKEN,
    body: { plan },
  });
  if (res.status !== 200) throw new Error(`set plan failed: ${JSON.stringify(res.body)}`);
}

/**
 * Registers the usual suite hooks: a test app and one developer before all tests, closed after.
 * `ready` receives both once they exist (on `opts.plan` when given).
 */
export function withAppAndDeveloper(
  ready: (app: TestApp, dev: Developer) => void,
  env: Record<string, string> = {},
  opts: { plan?: 'free' | 'pro' | 'enterprise' } = {},
): void {
  let app: TestApp | undefined;
  beforeAll(async () => {
    app = await startTestApp(env);
    const dev = await newDeveloper(app);
    if (opts.plan) await setPlan(app, dev.publisherId, opts.plan);
    ready(app, dev);
  });
  afterAll(() => app?.close());
}

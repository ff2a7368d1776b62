import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { type EmbeddingsConfig, embeddingsConfig, embeddingsEnv } from './embeddings';
import { type LinksConfig, linksConfig, linksEnv } from './links';
import { type OutboundConfig, outboundConfig, outboundEnv, outboundProblems } from './outbound';
import { type TelemetryConfig, telemetryConfig, telemetryEnv } from './telemetry';
import { type TelephonyConfig, telephonyConfig, telephonyEnv } from './telephony';
import { type TemporalConfig, temporalConfig, temporalEnv } from './temporal';
import { type WebhooksConfig, webhooksConfig, webhooksEnv } from './webhooks';

/** Plans, shared by accounts, rate limits and plan limits. */
export const PLANS = ['free', 'pro', 'enterprise'] as const;
export type Plan = (typeof PLANS)[number];

const optionalString = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === '' ? undefined : v.trim()));

const envSchema = z.object({
  NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
  HOST: z.string().default('0.0.0.0'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  PUBLIC_URL: optionalString.pipe(z.url().optional()),
  DATA_DIR: z.string().default('.data'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  LOG_FORMAT: optionalString.pipe(z.enum(['json', 'pretty']).optional()),

  DATABASE_URL: optionalString,
  DATABASE_POOL_MAX: z.coerce.number().int().min(1).max(200).default(10),

  ...temporalEnv,
  DEMO_MCP_PORT: z.coerce.number().int().min(0).max(65535).default(3100),
  DEMO_MCP: z.enum(['on', 'off']).default('on'),

  ENCRYPTION_KEY: optionalString,
  ENCRYPTION_PREVIOUS_KEYS: optionalString,
  ADMIN_TOKEN: optionalString,
  ...linksEnv,

  AUTH_ISSUER: optionalString,
  AUTH_AUDIENCE: optionalString,
  AUTH_JWKS_URL: optionalString.pipe(z.url().optional()),
  AUTH_ALGORITHMS: z.string().default('RS256'),
  AUTH_MAX_TOKEN_LIFETIME_S: z.coerce.number().int().min(60).max(2_592_000).default(86_400),

  ...webhooksEnv,
  ...outboundEnv,
  ...telephonyEnv,

  LLM_BASE_URL: optionalString.pipe(z.url().optional()),
  LLM_API_KEY: optionalString,
  LLM_MODEL: z.string().default('gpt-4o-mini'),

  STT_BASE_URL: optionalString.pipe(
    z.url({ protocol: /^https?$/, error: 'must be an http or https URL' }).optional(),
  ),
  STT_API_KEY: optionalString,
  STT_MODEL: z.string().min(1).default('whisper-1'),
  STT_TIMEOUT_MS: z.coerce.number().int().min(100).max(300_000).default(10_000),
  VAD_SILENCE_MS: z.coerce.number().int().min(100).max(5000).default(600),
  KNOWLEDGE_TURN_BUDGET_MS: z.coerce.number().int().min(10).max(5000).default(250),
  ...embeddingsEnv,
  RECORDING_RETENTION_DAYS: z.coerce.number().int().min(1).max(3650).default(30),

  VOICE_WORKERS: z.coerce.number().int().min(1).max(32).optional(),
  VOICE_CACHE_MB: z.coerce.number().min(0).max(4096).default(32),
  TTS_BASE_URL: optionalString.pipe(z.url().optional()),
  TTS_API_KEY: optionalString,
  TTS_MODEL: z.string().min(1).default('tts-1'),
  TTS_VOICES: z
    .string()
    .default('alloy,echo,fable,onyx,nova,shimmer')
    .transform((v) => v.split(',').map((s) => s.trim()))
    .pipe(
      z.array(z.string().regex(/^[A-Za-z0-9._-]{1,64}$/, 'must be voice names separated by commas')).min(1),
    ),

  SESSION_IDLE_TIMEOUT_S: z.coerce.number().int().min(1).max(86_400).default(600),
  SESSION_TURNS_PER_RUN: z.coerce.number().int().min(1).max(10_000).default(100),
  TEST_RUN_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(4),
  REVIEW_SLA_BUSINESS_DAYS: z.coerce.number().int().min(1).max(60).default(5),
  REVIEW_SLA_SECONDS: z.coerce.number().int().min(1).optional(),
  MARKETPLACE_REMOVAL_GRACE_DAYS: z.coerce.number().int().min(1).max(365).default(30),
  MARKETPLACE_REMOVAL_GRACE_SECONDS: z.coerce.number().int().min(1).optional(),

  DEFAULT_PLAN: z.enum(PLANS).default('free'),
  RATE_LIMITS: z.enum(['on', 'off']).default('on'),
  ANONYMOUS_RATE_LIMIT: z.coerce.number().int().min(1).default(300),
  TRUST_PROXY: optionalString,

  ...telemetryEnv,

  ANALYTICS_RECORDING: z.enum(['on', 'off']).default('on'),
  ANALYTICS_FLUSH_INTERVAL_MS: z.coerce.number().int().min(10).max(60_000).default(1000),
});

/** Production refuses a shorter ADMIN_TOKEN (a guessable operator token), as it refuses a short key. */
export const MIN_ADMIN_TOKEN_LENGTH = 32;

/** Rules across variables, checked on the raw environment so they are reported with every other problem. */
function crossFieldProblems(source: NodeJS.ProcessEnv): string[] {
  const set = (name: string) => Boolean(source[name]?.trim());
  const problems: string[] = [];
  const auth = ['AUTH_ISSUER', 'AUTH_AUDIENCE', 'AUTH_JWKS_URL'];
  if (auth.some(set) && !auth.every(set)) {
    problems.push('AUTH_ISSUER: AUTH_ISSUER, AUTH_AUDIENCE and AUTH_JWKS_URL must be set together');
  }
  if (source.NODE_ENV === 'production') {
    for (const name of ['ENCRYPTION_KEY', 'ADMIN_TOKEN', 'AUTH_ISSUER', 'DATABASE_URL']) {
      if (!set(name)) problems.push(`${name}: is required in production`);
    }
    const adminToken = source.ADMIN_TOKEN?.trim() ?? '';
    if (adminToken && adminToken.length < MIN_ADMIN_TOKEN_LENGTH) {
      problems.push(
        `ADMIN_TOKEN: must be at least ${MIN_ADMIN_TOKEN_LENGTH} characters in production (e.g. openssl rand -hex 32)`,
      );
    }
    if (source.RATE_LIMITS === 'off') problems.push('RATE_LIMITS: cannot be off in production');
  }
  problems.push(...outboundProblems(source));
  return problems;
}

export type RawEnv = z.infer<typeof envSchema>;

export interface Config {
  env: RawEnv['NODE_ENV'];
  isProduction: boolean;
  host: string;
  port: number;
  /** `npm start` serves the demo shop's MCP server on this port (DEMO_MCP, DEMO_MCP_PORT); never in production. */
  demoMcp?: { port: number };
  publicUrl?: string;
  dataDir: string;
  logLevel: RawEnv['LOG_LEVEL'];
  /** `LOG_FORMAT`; unset: readable lines for `npm start` in a terminal, JSON lines otherwise. */
  logFormat?: 'json' | 'pretty';
  database: { url?: string; poolMax: number };
  temporal: TemporalConfig;
  encryption: { key?: string; previousKeys: string[] };
  links: LinksConfig;
  adminToken?: string;
  /** An ID token valid for longer than this (from its `iat`, or from now) is refused. */
  authMaxTokenLifetimeSeconds: number;
  auth?: { issuer: string; audience: string; jwksUrl: string; algorithms: string[] };
  webhooks: WebhooksConfig;
  telephony: TelephonyConfig;
  /** Operator reviews are due `slaBusinessDays` business days (UTC) after submission, or `slaSeconds` (tests, demos). */
  reviews: { slaBusinessDays: number; slaSeconds?: number };
  /** A removed marketplace item's installations keep working `removalGraceDays` days, or `removalGraceSeconds`. */
  marketplace: { removalGraceDays: number; removalGraceSeconds?: number };
  /** Voice sessions end after `idleTimeoutS` without a turn; their workflow continues as new every `turnsPerRun` turns. */
  sessions: { idleTimeoutS: number; turnsPerRun: number };
  /** Agent tests: a run drives at most `runConcurrency` scenarios (sessions) at once (`TEST_RUN_CONCURRENCY`). */
  agentTests: { runConcurrency: number };
  /** Outbound calls (webhooks, tools, MCP, OAuth): which targets they may reach (src/config/outbound.ts). */
  outbound: OutboundConfig;
  llm: { baseUrl?: string; apiKey?: string; model: string };
  /**
   * Speech-to-text for caller audio: an OpenAI-compatible `POST {baseUrl}/audio/transcriptions`
   * (`STT_*`, docs/speech-to-text.md); unset: none, so caller audio cannot be transcribed.
   */
  stt?: { baseUrl: string; apiKey?: string; model: string; timeoutMs: number };
  /** Voice activity detection: a caller's utterance ends after `silenceMs` of silence (`VAD_SILENCE_MS`). */
  vad: { silenceMs: number };
  /** A turn waits at most `turnBudgetMs` for its knowledge (`KNOWLEDGE_TURN_BUDGET_MS`), then goes on without. */
  knowledge: { turnBudgetMs: number; embeddings?: EmbeddingsConfig }; // embeddings: src/config/embeddings.ts
  /** Session recordings are kept `retentionDays` days after they were made (`RECORDING_RETENTION_DAYS`). */
  recordings: { retentionDays: number };
  /**
   * Voice previews: `workers` speech threads (`VOICE_WORKERS`, default up to 2 by cores), an LRU cache
   * of `cacheBytes` (`VOICE_CACHE_MB`), and an optional OpenAI-compatible speech endpoint (`TTS_*`).
   */
  voices: {
    workers: number;
    cacheBytes: number;
    tts?: { baseUrl: string; apiKey?: string; model: string; voices: string[] };
  };
  defaultPlan: Plan;
  rateLimits: { enabled: boolean; anonymousPerMinute: number };
  /**
   * The proxies whose X-Forwarded-For is believed (Express's `trust proxy` list: addresses, CIDRs or
   * `loopback`, `linklocal`, `uniquelocal`); none when unset, so a client cannot choose its address.
   */
  trustProxy: string[];
  /**
   * Console analytics: platform API calls are counted in memory and written every `flushIntervalMs`
   * (and at shutdown); `recording` off (`ANALYTICS_RECORDING=off`, benchmarks) counts nothing.
   */
  analytics: { recording: boolean; flushIntervalMs: number };
  /** Traces and metrics (src/config/telemetry.ts). */
  telemetry: TelemetryConfig;
}

export class ConfigError extends Error {
  constructor(public readonly problems: string[]) {
    super(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigError';
  }
}

/** Reads and validates the environment once, with a message naming every bad variable. */
export function loadConfig(source: NodeJS.ProcessEnv = process.env): Config {
  const parsed = envSchema.safeParse(source);
  const problems = [
    ...(parsed.success ? [] : parsed.error.issues.map((i) => `${i.path.join('.') || '(env)'}: ${i.message}`)),
    ...crossFieldProblems(source),
  ];
  if (!parsed.success || problems.length > 0) throw new ConfigError(problems);
  const e = parsed.data;
  return {
    env: e.NODE_ENV,
    isProduction: e.NODE_ENV === 'production',
    host: e.HOST,
    port: e.PORT,
    demoMcp: e.DEMO_MCP === 'on' ? { port: e.DEMO_MCP_PORT } : undefined,
    publicUrl: e.PUBLIC_URL,
    dataDir: path.resolve(e.DATA_DIR),
    logLevel: e.LOG_LEVEL,
    logFormat: e.LOG_FORMAT,
    database: { url: e.DATABASE_URL, poolMax: e.DATABASE_POOL_MAX },
    temporal: temporalConfig(e, e.NODE_ENV === 'production'),
    encryption: {
      key: e.ENCRYPTION_KEY,
      previousKeys: (e.ENCRYPTION_PREVIOUS_KEYS ?? '')
        .split(',')
        .map((k) => k.trim())
        .filter(Boolean),
    },
    links: linksConfig(e),
    adminToken: e.ADMIN_TOKEN,
    authMaxTokenLifetimeSeconds: e.AUTH_MAX_TOKEN_LIFETIME_S,
    auth:
      e.AUTH_ISSUER && e.AUTH_AUDIENCE && e.AUTH_JWKS_URL
        ? {
            issuer: e.AUTH_ISSUER,
            audience: e.AUTH_AUDIENCE,
            jwksUrl: e.AUTH_JWKS_URL,
            algorithms: e.AUTH_ALGORITHMS.split(',').map((a) => a.trim()),
          }
        : undefined,
    webhooks: webhooksConfig(e),
    telephony: telephonyConfig(e),
    reviews: { slaBusinessDays: e.REVIEW_SLA_BUSINESS_DAYS, slaSeconds: e.REVIEW_SLA_SECONDS },
    marketplace: {
      removalGraceDays: e.MARKETPLACE_REMOVAL_GRACE_DAYS,
      removalGraceSeconds: e.MARKETPLACE_REMOVAL_GRACE_SECONDS,
    },
    sessions: { idleTimeoutS: e.SESSION_IDLE_TIMEOUT_S, turnsPerRun: e.SESSION_TURNS_PER_RUN },
    agentTests: { runConcurrency: e.TEST_RUN_CONCURRENCY },
    outbound: outboundConfig(e),
    llm: { baseUrl: e.LLM_BASE_URL, apiKey: e.LLM_API_KEY, model: e.LLM_MODEL },
    stt: e.STT_BASE_URL
      ? { baseUrl: e.STT_BASE_URL, apiKey: e.STT_API_KEY, model: e.STT_MODEL, timeoutMs: e.STT_TIMEOUT_MS }
      : undefined,
    vad: { silenceMs: e.VAD_SILENCE_MS },
    knowledge: { turnBudgetMs: e.KNOWLEDGE_TURN_BUDGET_MS, embeddings: embeddingsConfig(e) },
    recordings: { retentionDays: e.RECORDING_RETENTION_DAYS },
    voices: {
      workers: e.VOICE_WORKERS ?? Math.max(1, Math.min(2, os.availableParallelism())),
      cacheBytes: Math.round(e.VOICE_CACHE_MB * 1024 * 1024),
      tts: e.TTS_BASE_URL
        ? { baseUrl: e.TTS_BASE_URL, apiKey: e.TTS_API_KEY, model: e.TTS_MODEL, voices: e.TTS_VOICES }
        : undefined,
    },
    defaultPlan: e.DEFAULT_PLAN,
    rateLimits: { enabled: e.RATE_LIMITS === 'on', anonymousPerMinute: e.ANONYMOUS_RATE_LIMIT },
    trustProxy: (e.TRUST_PROXY ?? '')
      .split(',')
      .map((p) => p.trim())
      .filter(Boolean),
    analytics: { recording: e.ANALYTICS_RECORDING === 'on', flushIntervalMs: e.ANALYTICS_FLUSH_INTERVAL_MS },
    telemetry: telemetryConfig(e),
  };
}

/** The local PostgreSQL server used when DATABASE_URL is unset (development and tests). */
export const DEFAULT_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/voice_platform';

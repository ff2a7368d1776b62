import type { Client } from '@temporalio/client';
import type { IdTokenVerifier } from '../auth/id-token';
import type { KeyCache } from '../auth/key-cache';
import type { Config } from '../config/env';
import type { Encryptor } from '../crypto/encryption';
import type { Orm } from '../db/orm';
import type { Logger } from '../logging/logger';
import type { RateLimits } from '../ratelimit/rate-limits';
import type { Tracing } from '../telemetry/tracing';
import type { ApiCallRecorder } from './api-calls';
import type { McpConnections } from './mcp-connections';
import type { ReferenceChecks } from './references';
import type { Speech } from './speech';

/** Everything a request handler or activity needs, built once per process. */
export interface AppContext {
  config: Config;
  logger: Logger;
  orm: Orm;
  encryptor: Encryptor;
  /** MCP connections kept between tool calls (closed with the context). */
  mcpConnections: McpConnections;
  temporal: Client;
  rateLimits: RateLimits;
  verifyIdToken: IdTokenVerifier;
  /** Voice previews: speech worker threads (started by the app) and their cache (closed with the context). */
  speech: Speech;
  /**
   * Set where this process also runs a worker (npm start): a client on that worker's connection, so
   * voice-workflow executions start eagerly (the first workflow task comes back with the start
   * response instead of going through task-queue matching).
   */
  temporalEager?: Client;
  /** The Temporal frontend's address (for a worker this process starts of its own). */
  temporalAddress?: string;
  /** Where operators open the Temporal Web UI (printed at start, linked from /docs). */
  temporalUiUrl?: string;
  /** The demo shop's MCP server, where this process serves it (npm start, src/demo/). */
  demoMcpUrl?: string;
  /** OpenTelemetry tracing of this process (no-op unless OTEL_EXPORTER_OTLP_ENDPOINT is set). */
  tracing: Tracing;
  /** Ownership checks of ids that name another area's resource (wired at the composition root). */
  references: ReferenceChecks;
  /** Console analytics: platform API calls counted in memory, flushed every second and at close. */
  apiCalls: ApiCallRecorder;
  /** API keys looked up lately, dropped on every change through LISTEN/NOTIFY (closed with the context). */
  keyCache: KeyCache;
}

/** The part of the context that worker activities have too (no HTTP concerns). */
export type CoreContext = Pick<AppContext, 'config' | 'logger' | 'orm' | 'encryptor' | 'mcpConnections'>;

import type { Client } from '@temporalio/client';
import type { IdTokenVerifier } from '../auth/id-token';
import type { Config } from '../config/env';
import type { Encryptor } from '../crypto/encryption';
import type { Orm } from '../db/orm';
import type { Logger } from '../logging/logger';
import type { RateLimits } from '../ratelimit/rate-limits';

/** Everything a request handler or activity needs, built once per process. */
export interface AppContext {
  config: Config;
  logger: Logger;
  orm: Orm;
  encryptor: Encryptor;
  temporal: Client;
  rateLimits: RateLimits;
  verifyIdToken: IdTokenVerifier;
  /** Where operators open the Temporal Web UI (printed at start, linked from /docs). */
  temporalUiUrl?: string;
}

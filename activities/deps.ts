import type { Config } from '../src/config/env';
import type { Encryptor } from '../src/crypto/encryption';
import type { Orm } from '../src/db/orm';
import type { Logger } from '../src/logging/logger';

/** What activities are built from (dependency injection, as in temporalio/samples-typescript). */
export interface ActivityDeps {
  config: Config;
  logger: Logger;
  orm: Orm;
  encryptor: Encryptor;
}

import type { MikroORM } from '@mikro-orm/postgresql';
import type { Encryptor } from '../crypto/encryption';
import type { Logger } from '../logging/logger';
import { providerCredentialsById, recordProviderUse } from '../providers';
import type { ProviderVoiceAccess } from '../voices/provider-voices';

/**
 * The synthesizer's way to the accounts' voice providers (docs/providers.md): the provider's
 * endpoint and key, read when a segment is spoken (a replaced key is used at once), and the
 * characters each spoke, metered on the provider's account.
 */
export function providerVoiceAccess(
  orm: MikroORM,
  encryptor: Encryptor,
  logger: Logger,
): ProviderVoiceAccess {
  return {
    provider: (id) => providerCredentialsById(orm.em, encryptor, id, 'voice'),
    meter(accountId, providerId, characters) {
      recordProviderUse(orm.em, { accountId, provider: providerId, kind: 'voice', characters }).catch(
        (error) => logger.warn({ err: error, accountId }, 'a provider voice’s speech could not be metered'),
      );
    },
  };
}

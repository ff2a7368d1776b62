import { AccountSchema } from '../accounts/account.entity';
import { ApiKeySchema } from '../keys/api-key.entity';
import { SecretSchema } from '../secrets/secret.entity';

/** Every entity of the service; migrations are written against this list. */
export const entities = [AccountSchema, ApiKeySchema, SecretSchema];

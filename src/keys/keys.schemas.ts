import { z } from 'zod';
import { ENVIRONMENTS } from '../common/owner';
import { timestamp } from '../http/envelope';
import { ALL_SCOPES } from './scopes';

export const CreateKeyBody = z
  .strictObject({
    name: z.string().trim().min(1).max(100),
    environment: z
      .enum(ENVIRONMENTS)
      .default('live')
      .meta({ description: '`live` (pk_live_) or `test` (pk_test_)' }),
    scopes: z
      .array(z.enum(ALL_SCOPES))
      .min(1)
      .refine((s) => new Set(s).size === s.length, 'must not repeat a scope')
      .optional()
      .meta({ description: 'Scopes the key carries; default all' }),
  })
  .meta({ id: 'CreateKeyRequest' });
export type CreateKeyInput = z.infer<typeof CreateKeyBody>;

export const KeyIdParams = z.object({ id: z.string().min(1).max(64) });

const keyFields = {
  id: z.string().meta({ example: 'key_9aB3cD4eF5gH6iJ7kL8mN9oP' }),
  name: z.string(),
  environment: z.enum(ENVIRONMENTS),
  prefix: z.string().meta({ example: 'pk_live_AbCd****' }),
  scopes: z.array(z.string()),
  createdAt: timestamp(),
};

export const KeyRecord = z
  .object({ ...keyFields, lastUsedAt: timestamp().nullable() })
  .meta({ id: 'ApiKey' });
export const KeyList = z.object({ keys: z.array(KeyRecord) });
export const CreatedKey = z
  .object({ key: z.object({ ...keyFields, fullKey: z.string() }), warning: z.string() })
  .meta({ id: 'CreatedApiKey' });
export const RevokedKey = z.object({ success: z.literal(true), id: z.string(), revokedAt: timestamp() });

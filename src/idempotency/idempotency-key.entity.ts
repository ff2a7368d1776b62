import { EntitySchema, OptionalProps } from '@mikro-orm/core';
import { newId } from '../common/ids';
import type { Environment } from '../common/owner';
import { ownedResourceProperties, timestampProperties } from '../db/entity-properties';

/** `in_flight`: its first request is running; `completed`: its answer is stored for replay. */
export type IdempotencyKeyState = 'in_flight' | 'completed';

/**
 * An `Idempotency-Key` an account used on a create route in one environment (docs/api-contract.md
 * "Idempotent requests"): the fingerprint of the request it was first sent with and, once that
 * request was answered, the answer, encrypted (a created webhook's answer holds its signing secret).
 * Kept 24 hours, then deleted by the housekeeping schedule. Written with plain SQL by
 * idempotency.service.ts; the entity declares the table.
 */
export class IdempotencyKey {
  [OptionalProps]?: 'id' | 'status' | 'responseCiphertext' | 'createdAt' | 'updatedAt';
  id: string = newId('idk');
  account!: string;
  environment!: Environment;
  key!: string;
  /** SHA-256 (hex) of the method, path, query and canonical body. */
  fingerprint!: string;
  /** Random per claim: only the request that holds the claim may complete or release the row. */
  claim!: string;
  state!: IdempotencyKeyState;
  status?: number | null;
  responseCiphertext?: string | null;
  createdAt: Date = new Date();
  /** When the row was last claimed or completed: an in-flight row long unchanged was abandoned. */
  updatedAt: Date = new Date();
}

export const IdempotencyKeySchema = new EntitySchema<IdempotencyKey>({
  class: IdempotencyKey,
  tableName: 'idempotency_keys',
  uniques: [{ name: 'idempotency_keys_owner_key_unique', properties: ['account', 'environment', 'key'] }],
  indexes: [{ name: 'idempotency_keys_created_at_index', properties: ['createdAt'] }],
  properties: {
    ...ownedResourceProperties(),
    key: { type: 'string', length: 255 },
    fingerprint: { type: 'string', length: 64 },
    claim: { type: 'string', length: 32 },
    state: { type: 'string', length: 16 },
    status: { type: 'integer', nullable: true },
    responseCiphertext: { type: 'text', nullable: true },
    ...timestampProperties(),
  },
});

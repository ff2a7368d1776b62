import { EntitySchema, OptionalProps } from '@mikro-orm/core';
import { newId } from '../common/ids';
import type { Environment } from '../common/owner';
import { ownedResourceProperties, timestampProperties } from '../db/entity-properties';

/**
 * A logged activity (`act_…`): a custom event or metric of an account and environment, with a
 * `type`, a JSON `payload` and optional links to a user, a voice session and a persona. Queried
 * by `occurredAt` (when it happened, given by the caller or the time it was logged).
 */
export class Activity {
  [OptionalProps]?: 'id' | 'createdAt' | 'updatedAt' | 'userId' | 'sessionId' | 'personaId';
  id: string = newId('act');
  account!: string;
  environment!: Environment;
  type!: string;
  payload!: Record<string, unknown>;
  userId?: string | null;
  sessionId?: string | null;
  personaId?: string | null;
  occurredAt!: Date;
  createdAt: Date = new Date();
  updatedAt: Date = new Date(this.createdAt);
}

export const ActivitySchema = new EntitySchema<Activity>({
  class: Activity,
  tableName: 'activities',
  properties: {
    ...ownedResourceProperties(),
    type: { type: 'string', length: 64 },
    payload: { type: 'json', columnType: 'jsonb' },
    userId: { type: 'string', length: 128, nullable: true },
    sessionId: { type: 'string', length: 64, nullable: true },
    personaId: { type: 'string', length: 64, nullable: true },
    occurredAt: { type: 'Date', columnType: 'timestamptz' },
    ...timestampProperties(),
  },
});

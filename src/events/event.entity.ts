import { EntitySchema, OptionalProps } from '@mikro-orm/core';
import { newId } from '../common/ids';
import type { Environment } from '../common/owner';
import { ownedResourceProperties } from '../db/entity-properties';

/**
 * An event (`evt_…`) and its outbox entry in one row: written in the same transaction as the change
 * that causes it; `dispatchedAt` is set once the dispatcher has fanned it out to deliveries.
 * `payload` holds the exact envelope bytes sent on every attempt.
 */
export class Event {
  [OptionalProps]?: 'id' | 'createdAt' | 'dispatchedAt' | 'personaId';
  id: string = newId('evt');
  account!: string;
  environment!: Environment;
  type!: string;
  personaId?: string | null;
  payload!: string;
  createdAt: Date = new Date();
  dispatchedAt?: Date | null;
}

export const EventSchema = new EntitySchema<Event>({
  class: Event,
  tableName: 'events',
  properties: {
    ...ownedResourceProperties(),
    type: { type: 'string', length: 64 },
    personaId: { type: 'string', length: 64, nullable: true },
    payload: { type: 'text' },
    createdAt: { type: 'Date', columnType: 'timestamptz' },
    dispatchedAt: { type: 'Date', columnType: 'timestamptz', nullable: true },
  },
});

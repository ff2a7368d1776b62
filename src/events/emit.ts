import type { EntityManager } from '@mikro-orm/postgresql';
import { newId } from '../common/ids';
import type { Environment } from '../common/owner';
import type { EventType } from './catalog';
import { Event } from './event.entity';

export interface EmitEventInput {
  accountId: string;
  environment: Environment;
  type: EventType;
  data: Record<string, unknown>;
  /** Restricts delivery to webhooks without a persona or with this one; defaults to `data.personaId`. */
  personaId?: string | null;
}

/** The envelope (docs/api-contract.md "Events"), as delivered. */
export interface EventEnvelope {
  id: string;
  type: EventType;
  timestamp: string;
  publisherId: string;
  data: Record<string, unknown>;
}

/** The envelope of an event and its row values, for callers that insert events with SQL. */
export function eventRecord(input: EmitEventInput & { id?: string; at?: Date }) {
  const id = input.id ?? newId('evt');
  const createdAt = input.at ?? new Date();
  const envelope: EventEnvelope = {
    id,
    type: input.type,
    timestamp: createdAt.toISOString(),
    publisherId: input.accountId,
    data: input.data,
  };
  const personaId =
    input.personaId !== undefined
      ? input.personaId
      : typeof input.data.personaId === 'string'
        ? input.data.personaId
        : null;
  return { id, createdAt, envelope, personaId, payload: JSON.stringify(envelope) };
}

/** An event's row, for callers that insert events in a statement of their own (insertEventsSql). */
export type EventRow = ReturnType<typeof eventRecord> &
  Pick<EmitEventInput, 'type' | 'accountId' | 'environment'>;
export const eventRow = (e: EmitEventInput & { id?: string; at?: Date }): EventRow => ({
  ...eventRecord(e),
  type: e.type,
  accountId: e.accountId,
  environment: e.environment,
});

/**
 * Inserts events of one account and environment (ids fixed beforehand, so a repeat is a no-op) as
 * part of the caller's statement (a CTE or the statement itself), when `guard` (SQL) holds: an event
 * commits with the change that causes it, in one round trip.
 */
export function insertEventsSql(
  owner: { accountId: string; environment: Environment },
  events: EventRow[],
  guard = 'true',
  guardBindings: unknown[] = [],
): { sql: string; bindings: unknown[] } {
  return {
    sql: `insert into events (id, account_id, environment, type, persona_id, payload, created_at)
          select e.id, ?, ?, e.type, e.persona_id, e.payload, e.created_at
          from unnest(?::text[], ?::text[], ?::text[], ?::text[], ?::timestamptz[])
            as e(id, type, persona_id, payload, created_at)
          where ${guard}
          on conflict (id) do nothing`,
    bindings: [
      owner.accountId,
      owner.environment,
      events.map((e) => e.id),
      events.map((e) => e.type),
      events.map((e) => e.personaId),
      events.map((e) => e.payload),
      events.map((e) => e.createdAt.toISOString()),
      ...guardBindings,
    ],
  };
}

/**
 * The one way every feature emits an event: the event row (which is also its outbox entry) is
 * persisted in `em`, so it commits in the same transaction as the change that causes it, on the
 * caller's next flush. The envelope is serialised once here: every delivery attempt sends these
 * exact bytes. A dispatcher then fans it out to the matching webhooks.
 */
export function emitEvent(
  em: EntityManager,
  input: EmitEventInput & {
    /** A derived id makes a retried emission insert nothing twice. */ id?: string;
    /** When it happened (default now). */ at?: Date;
  },
): { event: Event; envelope: EventEnvelope } {
  const record = eventRecord(input);
  const event = em.create(Event, {
    id: record.id,
    account: input.accountId,
    environment: input.environment,
    type: input.type,
    personaId: record.personaId,
    payload: record.payload,
    createdAt: record.createdAt,
  });
  em.persist(event);
  return { event, envelope: record.envelope };
}

/**
 * An event on its own, outside any change (a tool's `tool.called` before the call): one INSERT, its
 * own transaction, instead of a unit of work. Same row as `emitEvent`.
 */
export async function insertEvent(
  em: EntityManager,
  input: EmitEventInput & { id?: string },
): Promise<EventEnvelope> {
  const record = eventRecord(input);
  await em
    .getConnection()
    .execute(
      'insert into events (id, account_id, environment, type, persona_id, payload, created_at) values (?, ?, ?, ?, ?, ?, ?) on conflict (id) do nothing',
      [
        record.id,
        input.accountId,
        input.environment,
        input.type,
        record.personaId,
        record.payload,
        record.createdAt,
      ],
    );
  return record.envelope;
}

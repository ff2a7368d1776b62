import { z } from 'zod';
import { EVENT_TYPES } from '../events/catalog';
import { envelopeOf, timestamp } from '../http/envelope';

export const TriggerEventBody = z
  .strictObject({
    type: z.enum(EVENT_TYPES).meta({ description: 'Any event type of docs/api-contract.md "Event types"' }),
    data: z
      .record(z.string(), z.unknown())
      .optional()
      .meta({ description: 'Fields merged over the realistic sample data of the type' }),
    personaId: z
      .string()
      .regex(/^persona_[A-Za-z0-9]{1,56}$/, 'must be a persona id (persona_…)')
      .optional()
      .meta({ description: 'The persona the event belongs to (for persona-filtered webhooks)' }),
  })
  .meta({ id: 'TriggerEventRequest' });

export const EventEnvelopeSchema = z
  .object({
    id: z.string().meta({ example: 'evt_…' }),
    type: z.enum(EVENT_TYPES),
    timestamp: timestamp(),
    publisherId: z.string(),
    data: z.record(z.string(), z.unknown()),
  })
  .meta({
    id: 'Event',
    description: 'The event envelope (docs/api-contract.md "Events"), exactly as delivered',
  });

export const TriggeredEvent = envelopeOf(
  z.object({
    event: EventEnvelopeSchema,
    matchingWebhooks: z
      .array(z.string())
      .meta({ description: 'Webhooks that will receive it (enabled, subscribed, persona matching)' }),
  }),
);

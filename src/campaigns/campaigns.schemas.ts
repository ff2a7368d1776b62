import { z } from 'zod';
import { envelopeOf, pagedEnvelopeOf, paginationQuery, timestamp } from '../http/envelope';
import { isTimeZone } from './calling-hours';
import { CALL_OUTCOMES, CAMPAIGN_STATUSES, CONTACT_STATUSES } from './statuses';

/** The most contacts one campaign calls. */
export const MAX_CAMPAIGN_CONTACTS = 10_000;
/** The most calls a campaign has under way at once. */
export const MAX_CAMPAIGN_CONCURRENCY = 50;

const variableName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,63}$/, 'must be a {{name}} placeholder name');
const e164 = z.string().regex(/^\+[1-9]\d{6,14}$/, 'must be an E.164 number (+ and 7 to 15 digits)');
const hhmm = z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'must be HH:MM (00:00 to 23:59)');

export const CampaignContactInput = z.strictObject({
  to: e164.meta({ description: 'Who to call, in E.164 form', example: '+14155552671' }),
  variables: z
    .record(variableName, z.string().max(1000))
    .refine((v) => Object.keys(v).length <= 50, 'at most 50 variables')
    .optional()
    .meta({ description: "Fill `{{name}}` placeholders in the persona's instructions and greeting" }),
});

export const CallingHoursSchema = z
  .strictObject({
    start: hhmm.meta({ description: 'Calls are placed from this local time...', example: '09:00' }),
    end: hhmm.meta({
      description: '...until this one (before `start`: the window spans midnight)',
      example: '17:00',
    }),
    timezone: z
      .string()
      .max(64)
      .refine(isTimeZone, 'must be an IANA time zone, such as America/New_York')
      .meta({ example: 'America/New_York' }),
  })
  .refine((h) => h.start !== h.end, { message: 'must differ from start', path: ['end'] })
  .meta({ id: 'CampaignCallingHours' });

export const RetryPlanSchema = z
  .strictObject({
    onBusy: z.boolean(),
    onNoAnswer: z.boolean(),
    onVoicemail: z.boolean(),
    maxAttempts: z
      .number()
      .int()
      .min(1)
      .max(10)
      .meta({ description: 'Attempts per contact, the first included' }),
    delayMinutes: z
      .number()
      .int()
      .min(0)
      .max(10_080)
      .meta({ description: 'Minutes between an attempt and the next (at most a week)' }),
  })
  .meta({ id: 'CampaignRetryPlan' });

export const CreateCampaignBody = z
  .strictObject({
    name: z.string().trim().min(1).max(200),
    phoneNumberId: z.string().regex(/^pn_[A-Za-z0-9]{1,56}$/, 'must be a phone number id (pn_…)'),
    personaId: z.string().regex(/^persona_[A-Za-z0-9]{1,56}$/, 'must be a persona id (persona_…)'),
    contacts: z.array(CampaignContactInput).min(1).max(MAX_CAMPAIGN_CONTACTS),
    concurrency: z.number().int().min(1).max(MAX_CAMPAIGN_CONCURRENCY),
    callingHours: CallingHoursSchema,
    retry: RetryPlanSchema,
  })
  .meta({ id: 'CreateCampaignRequest' });
export type CreateCampaignInput = z.infer<typeof CreateCampaignBody>;

export const ListCampaignsQuery = z.strictObject({
  status: z.enum(CAMPAIGN_STATUSES).optional(),
  ...paginationQuery,
});
export type ListCampaignsInput = z.infer<typeof ListCampaignsQuery>;

export const ListContactsQuery = z.strictObject({
  status: z.enum(CONTACT_STATUSES).optional(),
  ...paginationQuery,
});
export type ListContactsInput = z.infer<typeof ListContactsQuery>;

export const CampaignIdParams = z.object({ id: z.string().max(64) });

const count = () => z.number().int();

export const CampaignRecord = z
  .object({
    id: z.string().meta({ example: 'cmp_8fQm…' }),
    name: z.string(),
    status: z.enum(CAMPAIGN_STATUSES),
    phoneNumberId: z.string(),
    personaId: z.string(),
    concurrency: z.number().int(),
    callingHours: CallingHoursSchema,
    retry: RetryPlanSchema,
    outcomes: z
      .strictObject(
        Object.fromEntries(CALL_OUTCOMES.map((o) => [o, count()])) as Record<
          (typeof CALL_OUTCOMES)[number],
          ReturnType<typeof count>
        >,
      )
      .meta({
        description: "Contacts per final outcome (a contact's last attempt's, once no retry follows)",
      }),
    progress: z
      .strictObject({
        total: count(),
        done: count().meta({ description: 'Contacts with a final outcome' }),
        calling: count().meta({ description: 'Contacts with a call under way' }),
        waitingRetry: count().meta({ description: 'Contacts waiting for their next attempt' }),
        pending: count().meta({ description: 'Contacts not called yet' }),
        canceled: count().meta({ description: 'Contacts left uncalled by a cancel' }),
        calls: count().meta({ description: 'Calls placed so far, every attempt counted' }),
      })
      .meta({ description: 'Where the contacts are' }),
    createdAt: timestamp(),
    updatedAt: timestamp(),
    endedAt: timestamp().nullable().meta({ description: 'When its workflow ended (completed or canceled)' }),
  })
  .meta({
    id: 'Campaign',
    description: 'An outbound campaign: a list of contacts called within calling hours',
  });

export const CampaignAttempt = z
  .object({
    attempt: z.number().int(),
    callId: z.string().meta({ description: 'The call (GET /calls/:id)' }),
    outcome: z.enum(CALL_OUTCOMES).nullable().meta({ description: 'null while the call is under way' }),
    at: timestamp().meta({ description: 'When the call was queued' }),
  })
  .meta({ id: 'CampaignAttempt' });

export const CampaignContactRecord = z
  .object({
    index: z.number().int().meta({ description: 'Its place in the request, from 0' }),
    to: z.string(),
    variables: z.record(z.string(), z.string()),
    status: z.enum(CONTACT_STATUSES),
    attempts: z.array(CampaignAttempt),
    outcome: z.enum(CALL_OUTCOMES).nullable().meta({ description: 'The final outcome, once done' }),
    nextAttemptAt: timestamp().nullable().meta({ description: 'When a contact waiting to retry is due' }),
  })
  .meta({ id: 'CampaignContact' });

export const CampaignEnvelope = envelopeOf(CampaignRecord);
export const CampaignList = pagedEnvelopeOf(CampaignRecord);
export const CampaignContactList = pagedEnvelopeOf(CampaignContactRecord);

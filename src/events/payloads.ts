import { z } from 'zod';
import { EVENT_DESCRIPTIONS, type EventType } from './catalog';

const url = (description: string) => z.url().meta({ description });

/**
 * The links of an end-of-call event (docs/sessions.md "End-of-call links"): signed, expiring URLs
 * that open without an API key.
 */
const EndOfCallLinks = {
  transcriptUrl: url(
    'The session’s transcript as JSON (the `transcript` of GET /sessions/:id), signed: GET it without an API key until `linksExpireAt`',
  ),
  recordingUrl: url(
    'The call’s two-channel recording (WAV, the caller left, the agent right), signed like `transcriptUrl`; null when the session had no phone call or did not record it',
  ).nullable(),
  linksExpireAt: z.iso
    .datetime()
    .meta({ description: 'When both links stop opening (LINK_TTL_S after the event, default 7 days)' }),
};

/** `session.ended`'s `data`. */
export const SessionEndedData = z
  .strictObject({
    sessionId: z.string(),
    userId: z.string(),
    personaId: z.string(),
    duration: z.number().int().meta({ description: 'From the start to the end, in milliseconds' }),
    turnCount: z.number().int(),
    reason: z
      .string()
      .meta({ description: '`ended` (by the caller, the API or the call) or `idle_timeout`' }),
    ...EndOfCallLinks,
  })
  .meta({ id: 'SessionEndedEventData' });

/** `session.analyzed`'s `data`: the analysis and the same links as the session's `session.ended`. */
export const SessionAnalyzedData = z
  .strictObject({
    analysisId: z.string(),
    sessionId: z.string(),
    personaId: z.string(),
    status: z.enum(['completed', 'failed']),
    summary: z
      .string()
      .nullable()
      .meta({ description: 'The call in at most three sentences, when `analysis.summary` asks for it' }),
    success: z
      .object({ passed: z.boolean(), reason: z.string() })
      .nullable()
      .meta({ description: 'The call graded against `analysis.successCriteria`' }),
    data: z
      .record(z.string(), z.unknown())
      .nullable()
      .meta({ description: 'The fields of `analysis.dataSchema`' }),
    error: z.string().nullable().meta({ description: 'Why a `failed` analysis has no result' }),
    ...EndOfCallLinks,
  })
  .meta({ id: 'SessionAnalyzedEventData' });

const contactCount = (description: string) => z.number().int().meta({ description });

/** `campaign.completed`'s `data` (docs/campaigns.md): the campaign's final counts. */
export const CampaignCompletedData = z
  .strictObject({
    campaignId: z.string().meta({ description: 'The campaign (`cmp_…`)' }),
    name: z.string(),
    status: z
      .enum(['completed', 'canceled'])
      .meta({ description: '`completed`: every contact done; `canceled`: canceled through the API' }),
    outcomes: z
      .strictObject({
        answered: contactCount('Contacts whose last call was answered'),
        busy: contactCount('Contacts left busy'),
        'no-answer': contactCount('Contacts that did not answer'),
        voicemail: contactCount('Contacts whose last call reached voicemail'),
        failed: contactCount('Contacts whose last call failed'),
      })
      .meta({ description: 'Contacts per final outcome' }),
    progress: z.strictObject({
      total: contactCount('Contacts in the campaign'),
      done: contactCount('Contacts with a final outcome'),
      calling: contactCount('Always 0 once ended'),
      waitingRetry: contactCount('Always 0 once ended'),
      pending: contactCount('Always 0 once ended'),
      canceled: contactCount('Contacts left uncalled by a cancel'),
      calls: contactCount('Calls placed, every attempt counted'),
    }),
  })
  .meta({ id: 'CampaignCompletedEventData' });

const knowledgeSource = {
  sourceId: z.string().meta({ description: 'The source (`ks_…`)' }),
  knowledgeBaseId: z.string().meta({ description: 'Its knowledge base (`kb_…`)' }),
  name: z.string(),
  type: z.enum(['text', 'url', 'file']),
  generation: z.number().int().meta({ description: '1 for its first ingestion, one more per refresh' }),
};

/** `knowledge.source.ready`'s `data` (docs/knowledge.md "Ingestion"). */
export const KnowledgeSourceReadyData = z
  .strictObject({ ...knowledgeSource, chunks: z.number().int().meta({ description: 'Chunks now searched' }) })
  .meta({ id: 'KnowledgeSourceReadyEventData' });

/** `knowledge.source.failed`'s `data`: why, in plain words. */
export const KnowledgeSourceFailedData = z
  .strictObject({ ...knowledgeSource, reason: z.string() })
  .meta({ id: 'KnowledgeSourceFailedEventData' });

/** `webhook.disabled`'s `data` (docs/webhooks.md "Disabling"): sent to the account's other webhooks. */
export const WebhookDisabledData = z
  .strictObject({
    webhookId: z.string().meta({ description: 'The webhook that was disabled (`wh_…`)' }),
    name: z.string(),
    url: z.string(),
    reason: z
      .enum(['failing', 'gone'])
      .meta({ description: '`failing`: every attempt failed too long; `gone`: its receiver answered 410' }),
    failingSince: z.iso.datetime().meta({ description: 'The first failed attempt since the last success' }),
    disabledAt: z.iso.datetime(),
  })
  .meta({ id: 'WebhookDisabledEventData' });

export type SessionEndedPayload = z.input<typeof SessionEndedData>;
export type SessionAnalyzedPayload = z.input<typeof SessionAnalyzedData>;

/** The event types whose `data` has a schema of its own, documented as OpenAPI webhooks. */
export const EVENT_DATA_SCHEMAS: Partial<Record<EventType, z.ZodObject>> = {
  'session.ended': SessionEndedData,
  'session.analyzed': SessionAnalyzedData,
  'campaign.completed': CampaignCompletedData,
  'knowledge.source.ready': KnowledgeSourceReadyData,
  'knowledge.source.failed': KnowledgeSourceFailedData,
  'webhook.disabled': WebhookDisabledData,
};

/** The envelope of an event of `type` (docs/api-contract.md "Events"), with its `data` schema. */
export function eventEnvelopeSchema(type: EventType, data: z.ZodType) {
  return z
    .object({
      id: z.string().meta({ description: '`evt_…`, the same on every retry: deduplicate on it' }),
      type: z.literal(type),
      timestamp: z.iso.datetime(),
      publisherId: z.string().meta({ description: 'The account (`pub_…`)' }),
      data,
    })
    .meta({ description: EVENT_DESCRIPTIONS[type] });
}

import type { EntityManager } from '@mikro-orm/postgresql';
import { z } from 'zod';
import type { ProviderReference } from '../common/references';

/**
 * A persona's stack (docs/providers.md "An agent's stack"): its model, its transcriber and its voice,
 * each from one of the account's providers or, when none is named, the platform's default (the
 * operator's LLM_*, STT_* and voice settings). The provider ids are checked at save by a check the
 * composition root wires (`ReferenceChecks.providers`): each the account's, of the right kind.
 */
const providerId = (kind: string) =>
  z
    .string()
    .regex(/^prov_[A-Za-z0-9]{1,40}$/, 'must be a provider id (prov_…)')
    .meta({
      description: `One of the account’s ${kind} providers (GET /providers); absent: the platform’s default`,
    });

/** `conversation.model.provider`. */
export const ModelProviderSchema = providerId('chat');

/** `conversation.transcriber`: how the caller's speech becomes text. */
export const TranscriberSchema = z
  .strictObject({
    provider: providerId('transcription'),
    model: z.string().min(1).max(200).meta({ description: 'The transcription model', example: 'whisper-1' }),
    language: z.string().min(2).max(35).meta({
      description: 'The language spoken (ISO 639-1 or BCP 47), a hint to the provider',
      example: 'en',
    }),
  })
  .partial()
  .meta({ description: 'The agent’s speech-to-text: provider, model and language (absent: the platform’s)' });

/** `voice.model`: the provider's speech model, for a provider voice. */
export const VoiceModelSchema = z
  .string()
  .min(1)
  .max(200)
  .meta({ description: 'A provider voice’s speech model (e.g. tts-1, eleven_flash_v2_5)', example: 'tts-1' });

/** A provider id, as voice.provider names one (a catalog voice's provider is a vendor name). */
export const isProviderId = (value: string | undefined): value is string =>
  value?.startsWith('prov_') === true;

interface StackFields {
  voice?: { provider?: string };
  conversation?: { model?: { provider?: string }; transcriber?: { provider?: string } };
}

/** The provider ids a manifest names, with the field and the kind each needs. */
export function providerReferencesOf(manifest: StackFields): ProviderReference[] {
  const refs: ProviderReference[] = [];
  const model = manifest.conversation?.model?.provider;
  if (model) refs.push({ field: 'conversation.model.provider', id: model, kind: 'chat' });
  const transcriber = manifest.conversation?.transcriber?.provider;
  if (transcriber)
    refs.push({ field: 'conversation.transcriber.provider', id: transcriber, kind: 'transcription' });
  const voice = manifest.voice?.provider;
  if (isProviderId(voice)) refs.push({ field: 'voice.provider', id: voice, kind: 'voice' });
  return refs;
}

/** Where a manifest (jsonb `m`) names a provider: its model's, its transcriber's, its voice's. */
const NAMES_PROVIDER = (m: string) =>
  `(${m}#>>'{conversation,model,provider}' = :id or ${m}#>>'{conversation,transcriber,provider}' = :id or ${m}#>>'{voice,provider}' = :id)`;

/**
 * The personas of the account (their slug, or id) whose manifest, or one of its versions, names
 * provider `id`: what deleting it would leave without a stack.
 */
export async function personasNamingProvider(
  em: EntityManager,
  accountId: string,
  id: string,
): Promise<string[]> {
  const sql = `select coalesce(p.slug, p.id) as name from personas p
     where p.account_id = ? and (${NAMES_PROVIDER('p.manifest')}
       or exists (select 1 from persona_versions v where v.persona_id = p.id and ${NAMES_PROVIDER('v.manifest')}))
     order by p.created_at, p.id`;
  const params = [accountId, ...Array(6).fill(id)];
  const rows: { name: string }[] = await em.execute(sql.replaceAll(':id', '?'), params);
  return rows.map((r) => r.name);
}

import { z } from 'zod';
import { AnalysisSettingSchema } from './manifest-analysis';
import { isProviderId, ModelProviderSchema, TranscriberSchema, VoiceModelSchema } from './manifest-providers';
import { TelephonySettingsSchema } from './manifest-telephony';
import { PersonaToolsSchema } from './manifest-tools';

/**
 * A persona manifest (docs/api-contract.md "Persona manifests"). A draft may be incomplete, so every
 * field is optional here, but a field that is present must have the right type, and unknown fields
 * anywhere are refused. The rules a persona must pass to be submitted are `validatePersonaManifest`
 * below.
 */
const text = (max: number) => z.string().max(max);
const list = (max: number, item = text(500)) => z.array(item).max(max);

export const PERSONA_CATEGORIES = [
  'customer_support',
  'sales',
  'productivity',
  'education',
  'health_wellness',
  'entertainment',
  'finance',
  'travel',
  'hospitality',
  'healthcare_admin',
  'other',
] as const;
export type PersonaCategory = (typeof PERSONA_CATEGORIES)[number];

const unit = z.number().meta({ description: 'Between 0 and 1' });

export const PersonaManifestSchema = z
  .strictObject({
    identity: z
      .strictObject({
        id: text(200).meta({ description: 'Slug, unique among your personas', example: 'ava-support' }),
        name: text(500).meta({ example: 'Ava' }),
        tagline: text(1000).meta({ example: 'Your calm support specialist' }),
        description: text(10_000),
        aliases: list(100, text(200)),
      })
      .partial(),
    voice: z
      .strictObject({
        provider: text(100).meta({
          description: 'The voice catalog entry’s provider, or one of the account’s voice providers (prov_…)',
        }),
        voice_id: text(200).meta({ description: 'An id from GET /voices (a provider voice: its own id)' }),
        model: VoiceModelSchema,
      })
      .partial(),
    personality: z
      .strictObject({
        warmth: unit,
        humor_level: unit,
        directness: unit,
        formality: unit,
        traits: list(100, text(200)),
      })
      .partial(),
    knowledge: z
      .strictObject({
        category: text(100).meta({ description: 'One of GET /personas/categories' }),
        domains: list(100, text(200)),
        expertise_tags: list(100, text(200)),
        out_of_scope_topics: list(100, text(200)),
        bases: list(10, text(64)).meta({
          description: 'Knowledge bases (kb_…) of your account the agent searches (at most 10)',
        }),
      })
      .partial(),
    behaviors: z
      .strictObject({
        greetings: list(50, text(2000)),
        backchannels: list(50, text(200)),
        thinking_sounds: list(50, text(200)),
        record_calls: z.boolean().meta({
          description:
            'Sessions with this persona keep their turns’ audio unless started with `recording: false`',
        }),
      })
      .partial(),
    conversation: z
      .strictObject({
        instructions: text(8000).meta({
          description:
            'The agent’s own prompt: placed in the system prompt after the persona’s identity and before the caller’s activities',
        }),
        language: text(35).meta({
          description: 'BCP 47 tag of the conversation’s language, told to the model',
          example: 'en-US',
        }),
        model: z
          .strictObject({
            provider: ModelProviderSchema,
            name: text(200).meta({ description: 'The model to call (default: LLM_MODEL)' }),
            temperature: z.number().meta({ description: 'Between 0 and 2' }),
            maxTokens: z.number().int().meta({ description: 'A reply’s token limit, 1–16 384' }),
          })
          .partial(),
        transcriber: TranscriberSchema,
      })
      .partial(),
    analysis: AnalysisSettingSchema,
    tools: PersonaToolsSchema,
    telephony: TelephonySettingsSchema,
  })
  .partial()
  .meta({
    id: 'PersonaManifest',
    description:
      'A persona manifest (docs/api-contract.md "Persona manifests"); every field optional in a draft',
  });
export type PersonaManifest = z.infer<typeof PersonaManifestSchema>;

/**
 * The rules, written once: `validatePersonaManifest` applies them; OpenAPI and docs/api-contract.md
 * "Persona manifests" show them.
 */
export const PERSONA_RULES = {
  errors: [
    'identity.id: required; a slug (lowercase letters, digits and single hyphens) of 3–64 characters, unique among your personas',
    'identity.name: required; 1–80 characters',
    'identity.tagline: at most 120 characters',
    'identity.description: required; 20–2000 characters',
    'identity.aliases: at most 10, all different',
    'voice.voice_id: required; a voice of GET /voices',
    "voice.provider: required; that voice's provider, or one of the account's voice providers (prov_…)",
    'conversation.model.provider, conversation.transcriber.provider: one of the account’s providers of that kind',
    'personality.warmth, humor_level, directness, formality: required; each between 0 and 1',
    'personality.traits: 1–10',
    `knowledge.category: required; one of ${PERSONA_CATEGORIES.join(', ')}`,
    'behaviors.greetings: at least one, each at most 200 characters',
    'conversation.instructions: at most 8 000 characters',
    'conversation.language: a BCP 47 language tag (for example en-US)',
    'conversation.model.name: 1–200 characters',
    'conversation.model.temperature: between 0 and 2',
    'conversation.model.maxTokens: a whole number from 1 to 16 384',
  ],
  warnings: [
    'behaviors.backchannels: none given (the agent sounds less natural while listening)',
    'behaviors.thinking_sounds: none given (silence while the agent works)',
    'knowledge.out_of_scope_topics: none given (the agent will not refuse any topic)',
    'behaviors.greetings[i]: longer than 120 characters (long to hear)',
    'identity.description: under 50 characters (too thin to shape the agent)',
    "conversation.language: not the language of the persona's voice",
  ],
} as const;

export interface ValidationResult {
  valid: boolean;
  errors: string[];
  warnings: string[];
}

/** What validation needs to know beyond the manifest. */
export interface ValidationContext {
  /** True when another persona of the account already uses this `identity.id`. */
  slugTaken: (slug: string) => boolean;
  /** The catalog voice with this id (its provider and language), or undefined. */
  findVoice: (voiceId: string) => { provider: string; language?: string } | undefined;
}

const SLUG = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
const PERSONALITY_DIALS = ['warmth', 'humor_level', 'directness', 'formality'] as const;
const length = (s: string) => [...s].length;

/** Every problem at once, as `"<path>: <problem>"`; warnings never make a persona invalid. */
export function validatePersonaManifest(m: PersonaManifest, ctx: ValidationContext): ValidationResult {
  const errors: string[] = [];
  const warnings: string[] = [];
  const { identity = {}, voice = {}, personality = {}, knowledge = {}, behaviors = {} } = m;

  if (identity.id === undefined) errors.push('identity.id: is required');
  else if (length(identity.id) < 3 || length(identity.id) > 64 || !SLUG.test(identity.id)) {
    errors.push('identity.id: must be a slug of 3–64 characters (lowercase letters, digits, single hyphens)');
  } else if (ctx.slugTaken(identity.id)) {
    errors.push(`identity.id: "${identity.id}" is already used by another of your personas`);
  }

  if (identity.name === undefined) errors.push('identity.name: is required');
  else if (identity.name.trim().length === 0 || length(identity.name) > 80) {
    errors.push('identity.name: must be 1–80 characters');
  }
  if (identity.tagline !== undefined && length(identity.tagline) > 120) {
    errors.push('identity.tagline: must be at most 120 characters');
  }
  if (identity.description === undefined) errors.push('identity.description: is required');
  else {
    const n = length(identity.description.trim());
    if (n < 20 || length(identity.description) > 2000) {
      errors.push('identity.description: must be 20–2000 characters');
    } else if (n < 50)
      warnings.push('identity.description: is under 50 characters; say more about the persona');
  }
  if (identity.aliases !== undefined) {
    if (identity.aliases.length > 10) errors.push('identity.aliases: must have at most 10 aliases');
    const folded = identity.aliases.map((a) => a.trim().toLowerCase());
    if (new Set(folded).size !== folded.length) errors.push('identity.aliases: must all be different');
  }

  if (voice.voice_id === undefined) errors.push('voice.voice_id: is required');
  // a provider voice's id is the provider's own (its provider is checked at save)
  const providerVoice = isProviderId(voice.provider);
  const known = voice.voice_id === undefined || providerVoice ? undefined : ctx.findVoice(voice.voice_id);
  if (voice.voice_id !== undefined && !known && !providerVoice) {
    errors.push(`voice.voice_id: "${voice.voice_id}" is not a voice of GET /voices`);
  }
  if (voice.provider === undefined) errors.push('voice.provider: is required');
  else if (known && known.provider !== voice.provider) {
    errors.push(`voice.provider: must be "${known.provider}", the provider of voice "${voice.voice_id}"`);
  }

  for (const dial of PERSONALITY_DIALS) {
    const value = personality[dial];
    if (value === undefined) errors.push(`personality.${dial}: is required`);
    else if (!(value >= 0 && value <= 1)) errors.push(`personality.${dial}: must be between 0 and 1`);
  }
  if (personality.traits === undefined || personality.traits.length === 0) {
    errors.push('personality.traits: at least one trait is required');
  } else if (personality.traits.length > 10) errors.push('personality.traits: must have at most 10 traits');

  if (knowledge.category === undefined) errors.push('knowledge.category: is required');
  else if (!(PERSONA_CATEGORIES as readonly string[]).includes(knowledge.category)) {
    errors.push(`knowledge.category: must be one of ${PERSONA_CATEGORIES.join(', ')}`);
  }
  if (!knowledge.out_of_scope_topics?.length) {
    warnings.push('knowledge.out_of_scope_topics: none given; the agent will not refuse any topic');
  }

  const greetings = behaviors.greetings ?? [];
  if (greetings.filter((g) => g.trim().length > 0).length === 0) {
    errors.push('behaviors.greetings: at least one greeting is required');
  }
  greetings.forEach((g, i) => {
    if (length(g) > 200) errors.push(`behaviors.greetings[${i}]: must be at most 200 characters`);
    else if (length(g) > 120) warnings.push(`behaviors.greetings[${i}]: is longer than 120 characters`);
  });
  if (!behaviors.backchannels?.length) {
    warnings.push('behaviors.backchannels: none given; the agent sounds less natural while listening');
  }
  if (!behaviors.thinking_sounds?.length) {
    warnings.push('behaviors.thinking_sounds: none given; the caller hears silence while the agent works');
  }
  checkConversation(m.conversation ?? {}, known?.language, errors, warnings);

  return { valid: errors.length === 0, errors, warnings };
}

/** The `conversation` group's rules: its prompt, its language (with the voice's), its model. */
function checkConversation(
  conversation: NonNullable<PersonaManifest['conversation']>,
  voiceLanguage: string | undefined,
  errors: string[],
  warnings: string[],
) {
  const { instructions, language, model = {} } = conversation;
  if (instructions !== undefined && length(instructions) > 8000) {
    errors.push('conversation.instructions: must be at most 8 000 characters');
  }
  const tag = language === undefined ? undefined : canonicalLanguage(language);
  if (language !== undefined && !tag) {
    errors.push(`conversation.language: "${language}" is not a BCP 47 language tag (for example en-US)`);
  } else if (tag && voiceLanguage && primaryLanguage(tag) !== primaryLanguage(voiceLanguage)) {
    warnings.push(
      `conversation.language: ${tag} is not the language of the persona's voice (${voiceLanguage})`,
    );
  }
  if (model.name !== undefined && (model.name.trim() === '' || length(model.name) > 200)) {
    errors.push('conversation.model.name: must be 1–200 characters');
  }
  if (model.temperature !== undefined && !(model.temperature >= 0 && model.temperature <= 2)) {
    errors.push('conversation.model.temperature: must be between 0 and 2');
  }
  if (model.maxTokens !== undefined && !(model.maxTokens >= 1 && model.maxTokens <= 16_384)) {
    errors.push('conversation.model.maxTokens: must be a whole number from 1 to 16 384');
  }
}

/** The canonical form of a BCP 47 tag (`en-us` → `en-US`), or undefined when it is not one. */
export function canonicalLanguage(tag: string): string | undefined {
  try {
    return Intl.getCanonicalLocales(tag)[0];
  } catch {
    return undefined;
  }
}

const primaryLanguage = (tag: string) => tag.split('-')[0].toLowerCase();

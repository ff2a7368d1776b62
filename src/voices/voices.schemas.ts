import { z } from 'zod';
import { GENDERS, VOICE_CATEGORIES, VOICE_PROVIDERS } from './voices.catalog';

/** Longest preview text, in characters (Unicode code points). */
export const MAX_PREVIEW_CHARS = 500;

export const VoiceSchema = z
  .strictObject({
    id: z.string().meta({
      description: 'Stable id; personas store it as `voice.voice_id`',
      example: 'espeak-en-us-aria',
    }),
    name: z.string().meta({ example: 'Aria' }),
    description: z.string(),
    gender: z.enum(GENDERS),
    category: z
      .string()
      .meta({ description: `In use: ${VOICE_CATEGORIES.join(', ')}`, example: 'conversational' }),
    tags: z.array(z.string()),
    provider: z.enum(VOICE_PROVIDERS).meta({ description: 'Personas store it as `voice.provider`' }),
    language: z.string().meta({ description: 'BCP 47 language tag', example: 'en-US' }),
    sampleText: z.string().meta({ description: 'A sentence to preview the voice with' }),
  })
  .meta({ id: 'Voice' });

export const ProviderVoiceSchema = z
  .strictObject({
    provider: z
      .string()
      .meta({ description: 'The account’s voice provider; personas store it as `voice.provider`' }),
    voiceId: z
      .string()
      .meta({ description: 'The provider’s voice id; personas store it as `voice.voice_id`' }),
    name: z.string(),
    description: z.string(),
    previewUrl: z.string().nullable().meta({ description: 'The provider’s own sample, when it has one' }),
  })
  .meta({ id: 'ProviderVoice' });

export const VoiceList = z
  .strictObject({
    voices: z.array(VoiceSchema),
    providerVoices: z.array(ProviderVoiceSchema).meta({
      description:
        'The voices of the account’s voice providers (GET /providers?kind=voice), beside the catalog',
    }),
    providerErrors: z
      .array(z.strictObject({ provider: z.string(), message: z.string() }))
      .meta({ description: 'Providers whose voices could not be listed, and why' }),
  })
  .meta({ id: 'VoiceList' });

export const ListVoicesQuery = z.strictObject({
  gender: z.enum(GENDERS).optional(),
  category: z.string().min(1).max(50).optional().meta({ description: 'Exact category, e.g. `narration`' }),
  language: z
    .string()
    .min(1)
    .max(35)
    .optional()
    .meta({ description: 'Exact BCP 47 tag (case-insensitive), e.g. `en-GB`' }),
  provider: z.enum(VOICE_PROVIDERS).optional(),
});

const chars = (s: string) => [...s].length;

export const PreviewBody = z.strictObject({
  voice_id: z.string().min(1).max(200).meta({
    description: 'A voice id from GET /voices (a provider voice: its `voiceId`)',
    example: 'espeak-en-us-aria',
  }),
  provider: z
    .string()
    .regex(/^prov_[A-Za-z0-9]{1,40}$/, 'must be a provider id (prov_…)')
    .optional()
    .meta({ description: 'For a provider voice: the account’s voice provider' }),
  model: z.string().min(1).max(200).optional().meta({ description: 'A provider voice’s speech model' }),
  text: z
    .string()
    .refine((t) => chars(t) >= 1, 'must be at least 1 character')
    .refine((t) => chars(t) <= MAX_PREVIEW_CHARS, `must be at most ${MAX_PREVIEW_CHARS} characters`)
    .refine((t) => t.trim().length > 0 || chars(t) === 0, 'must not be only whitespace')
    .meta({
      description: `1-${MAX_PREVIEW_CHARS} characters`,
      example: 'Hi! Thanks for calling. How can I help?',
    }),
});

export const PreviewEnvelope = z
  .strictObject({
    preview: z.strictObject({
      audioUrl: z.string().meta({
        description: '`data:audio/mpeg;base64,…` (32 kbps MP3), or `audio/wav` from a remote provider',
      }),
      duration: z.number().meta({ description: 'Seconds of audio (fractional)', example: 2.87 }),
      text: z.string(),
    }),
  })
  .meta({ id: 'VoicePreview' });

import { z } from 'zod';
import { envelopeOf, pagedEnvelopeOf, paginationQuery, timestamp } from '../http/envelope';
import { PROVIDER_APIS, PROVIDER_KINDS, PROVIDER_PRESET_NAMES } from './presets';

const kind = z.enum(PROVIDER_KINDS).meta({
  description: '`chat` (the agent’s model), `transcription` (speech-to-text) or `voice` (text-to-speech)',
});
const apiKey = z
  .string()
  .min(1)
  .max(4096)
  .meta({ description: 'The provider’s API key; stored encrypted, never returned', writeOnly: true });
const baseUrl = z
  .url({ protocol: /^https?$/ })
  .max(2048)
  .meta({
    description: 'The API’s base URL, with its version (`https://api.example.com/v1`); instead of `preset`',
  });
const name = z.string().trim().min(1).max(100).meta({ example: 'Our OpenAI account' });

export const ProviderIdParams = z.object({ id: z.string().max(40).meta({ example: 'prov_9f8e7d' }) });

export const CreateProviderBody = z
  .strictObject({
    name,
    kind,
    preset: z
      .enum(PROVIDER_PRESET_NAMES)
      .optional()
      .meta({
        description: `A hosted service by name: ${PROVIDER_PRESET_NAMES.join(', ')}; instead of \`baseUrl\``,
      }),
    baseUrl: baseUrl.optional(),
    api: z.enum(PROVIDER_APIS).optional().meta({
      description:
        'The API it speaks with `baseUrl`: `openai` (default) or `elevenlabs` (voices only); a preset knows its own',
    }),
    apiKey,
  })
  .meta({ id: 'CreateProviderRequest' });
export type CreateProviderInput = z.infer<typeof CreateProviderBody>;

export const UpdateProviderBody = z.strictObject({ name, baseUrl, apiKey }).partial().meta({
  id: 'UpdateProviderRequest',
  description: 'A new name, base URL (the preset is then dropped) or key',
});
export type UpdateProviderInput = z.infer<typeof UpdateProviderBody>;

export const ListProvidersQuery = z.strictObject({ ...paginationQuery, kind: kind.optional() });

export const ProviderRecord = z
  .object({
    id: z.string(),
    name: z.string(),
    kind,
    api: z.enum(PROVIDER_APIS),
    preset: z.string().nullable(),
    baseUrl: z.string(),
    createdAt: timestamp(),
    updatedAt: timestamp(),
  })
  .meta({ id: 'Provider', description: 'A provider the account connected; its key is never returned' });

export const ProviderEnvelope = envelopeOf(ProviderRecord);
export const ProviderList = pagedEnvelopeOf(ProviderRecord);
export const DeletedProvider = envelopeOf(z.object({ deleted: z.literal(true), id: z.string() }));

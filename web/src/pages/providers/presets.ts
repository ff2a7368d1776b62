import type { components } from '../../api/schema';

type CreateProvider = components['schemas']['CreateProviderRequest'];
export type Provider = components['schemas']['Provider'];
export type ProviderKind = CreateProvider['kind'];
export type PresetName = NonNullable<CreateProvider['preset']>;
export type ProviderApi = NonNullable<CreateProvider['api']>;

/** The kinds, as the console names them. */
export const KIND_LABELS: Record<ProviderKind, string> = {
  chat: 'Chat model',
  transcription: 'Transcription',
  voice: 'Voice',
};

/**
 * The hosted services the API knows by name and the kinds each serves (src/providers/presets.ts: the
 * API's enum types the keys, so a preset added there fails the console's typecheck until it is here).
 */
export const PRESETS: Record<PresetName, { label: string; kinds: readonly ProviderKind[] }> = {
  openai: { label: 'OpenAI', kinds: ['chat', 'transcription', 'voice'] },
  groq: { label: 'Groq', kinds: ['chat', 'transcription'] },
  together: { label: 'Together AI', kinds: ['chat'] },
  mistral: { label: 'Mistral', kinds: ['chat'] },
  deepseek: { label: 'DeepSeek', kinds: ['chat'] },
  openrouter: { label: 'OpenRouter', kinds: ['chat'] },
  fireworks: { label: 'Fireworks AI', kinds: ['chat'] },
  elevenlabs: { label: 'ElevenLabs', kinds: ['voice'] },
};

/** The presets that serve `kind`, as select options. */
export const presetOptions = (kind: ProviderKind) =>
  (Object.keys(PRESETS) as PresetName[])
    .filter((name) => PRESETS[name].kinds.includes(kind))
    .map((name) => ({ value: name, label: PRESETS[name].label }));

/** Where a provider is: its preset's name, or its base URL. */
export const whereLabel = (p: Pick<Provider, 'preset' | 'baseUrl'>) =>
  p.preset && p.preset in PRESETS ? PRESETS[p.preset as PresetName].label : p.baseUrl;

/** The problems of a refused save (`name: …`) on the field they name; the rest stay in the alert. */
export function problemsOf(validationErrors: readonly string[], field: string): string | undefined {
  const mine = validationErrors
    .filter((line) => line.startsWith(`${field}: `))
    .map((line) => line.slice(field.length + 2));
  return mine.length ? mine.join('; ') : undefined;
}

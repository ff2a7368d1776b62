/**
 * The kinds of provider an account connects (docs/providers.md): chat models, speech-to-text and
 * voices, each spoken to in one API: `openai` (OpenAI's chat completions, transcriptions or speech,
 * which most hosted services also speak) or `elevenlabs` (ElevenLabs' text-to-speech, for voices).
 */
export const PROVIDER_KINDS = ['chat', 'transcription', 'voice'] as const;
export type ProviderKind = (typeof PROVIDER_KINDS)[number];
export const PROVIDER_APIS = ['openai', 'elevenlabs'] as const;
export type ProviderApi = (typeof PROVIDER_APIS)[number];

/** A hosted service by name: its base URL, the API it speaks, and the kinds it serves. */
export interface ProviderPreset {
  baseUrl: string;
  api: ProviderApi;
  kinds: readonly ProviderKind[];
}

/**
 * The common hosted services, so that connecting one is its name and a key. Base URLs include the API
 * version, as OpenAI's client libraries take them.
 */
export const PROVIDER_PRESETS = {
  openai: { baseUrl: 'https://api.openai.com/v1', api: 'openai', kinds: ['chat', 'transcription', 'voice'] },
  groq: { baseUrl: 'https://api.groq.com/openai/v1', api: 'openai', kinds: ['chat', 'transcription'] },
  together: { baseUrl: 'https://api.together.xyz/v1', api: 'openai', kinds: ['chat'] },
  mistral: { baseUrl: 'https://api.mistral.ai/v1', api: 'openai', kinds: ['chat'] },
  deepseek: { baseUrl: 'https://api.deepseek.com/v1', api: 'openai', kinds: ['chat'] },
  openrouter: { baseUrl: 'https://openrouter.ai/api/v1', api: 'openai', kinds: ['chat'] },
  fireworks: { baseUrl: 'https://api.fireworks.ai/inference/v1', api: 'openai', kinds: ['chat'] },
  elevenlabs: { baseUrl: 'https://api.elevenlabs.io', api: 'elevenlabs', kinds: ['voice'] },
} as const satisfies Record<string, ProviderPreset>;
export type ProviderPresetName = keyof typeof PROVIDER_PRESETS;
export const PROVIDER_PRESET_NAMES = Object.keys(PROVIDER_PRESETS) as ProviderPresetName[];

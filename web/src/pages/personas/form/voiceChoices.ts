import { useQuery } from '@tanstack/react-query';
import { providersQuery } from '../../../api/queries';
import type { components } from '../../../api/schema';
import { voiceListQuery } from '../../voices/voicePreview';

export type Voice = components['schemas']['Voice'];
export type ProviderVoice = components['schemas']['ProviderVoice'];

/** One voice the picker offers: a catalog voice, or a voice of one of the account's voice providers. */
export type VoiceChoice =
  | { key: string; source: 'catalog'; voice: Voice }
  | { key: string; source: 'provider'; voice: ProviderVoice; providerName: string; api: string };

/** A provider id (`prov_…`), as `voice.provider` names one; a catalog voice's provider is its vendor. */
export const isProviderId = (value: string) => value.startsWith('prov_');

/** The picker's value of a voice: unique across the catalog and every provider. */
export const choiceKey = (provider: string, voiceId: string) =>
  isProviderId(provider) ? `${provider}::${voiceId}` : `catalog::${voiceId}`;

const catalogLabel = (v: Voice) => `${v.name} — ${v.language}, ${v.gender}, ${v.category}`;

/**
 * GET /voices and the account's providers as the picker's choices: the catalog, then each provider's
 * voices under its name; `failed` names the providers whose voices could not be listed, and why.
 */
export function useVoiceChoices() {
  const list = useQuery(voiceListQuery);
  const providers = useQuery(providersQuery());
  const byId = new Map((providers.data ?? []).map((p) => [p.id, p]));
  const nameOf = (id: string) => byId.get(id)?.name ?? id;
  const choices: VoiceChoice[] = [
    ...(list.data?.voices ?? []).map((voice) => ({
      key: choiceKey(voice.provider, voice.id),
      source: 'catalog' as const,
      voice,
    })),
    ...(list.data?.providerVoices ?? []).map((voice) => ({
      key: choiceKey(voice.provider, voice.voiceId),
      source: 'provider' as const,
      voice,
      providerName: nameOf(voice.provider),
      api: byId.get(voice.provider)?.api ?? 'openai',
    })),
  ];
  const groups = [
    {
      group: 'Catalog voices',
      items: choices
        .filter((c) => c.source === 'catalog')
        .map((c) => ({ value: c.key, label: catalogLabel(c.voice as Voice) })),
    },
    ...[...new Set(list.data?.providerVoices.map((v) => v.provider) ?? [])].map((provider) => ({
      group: `${nameOf(provider)} (your provider)`,
      items: choices
        .filter((c) => c.source === 'provider' && c.voice.provider === provider)
        .map((c) => ({ value: c.key, label: c.voice.name })),
    })),
  ];
  const failed = (list.data?.providerErrors ?? []).map((e) => ({ ...e, name: nameOf(e.provider) }));
  return { choices, groups, failed, nameOf, pending: list.isPending, error: list.error ?? providers.error };
}

/** A provider voice's default speech model, as the API picks it (docs/providers.md "An agent's stack"). */
export const defaultVoiceModel = (api: string) => (api === 'elevenlabs' ? 'eleven_flash_v2_5' : 'tts-1');

/** What a provider voice says when previewed (a catalog voice says its own sample sentence). */
export const PROVIDER_SAMPLE = 'Hi! Thanks for calling. How can I help you today?';

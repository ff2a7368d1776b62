import type { SpeechPcm } from '../common/speech';
import type { OutboundPolicy } from '../outbound/http';
import { ELEVENLABS_DEFAULT_MODEL, elevenLabsSpeechStream, elevenLabsVoices } from './elevenlabs-tts';
import { ReadAheadPcm } from './pcm-stream';
import { remoteSpeechPcm } from './remote-tts';

/** A voice provider as the synthesizer reaches it: where, how, with which key, whose. */
export interface VoiceProviderAccount {
  id: string;
  api: 'openai' | 'elevenlabs';
  baseUrl: string;
  apiKey: string;
  accountId: string;
}

/** How the synthesizer finds an account's voice provider and meters what it spoke (the composition root's). */
export interface ProviderVoiceAccess {
  /** The provider, whoever's it is (a persona picked it at save, where its account was checked). */
  provider(id: string): Promise<VoiceProviderAccount | undefined>;
  /** `characters` spoken by the provider, on its account. */
  meter(accountId: string, providerId: string, characters: number): void;
}

/** A provider voice, as a session names it: `<provider id>/<model, may be empty>/<the provider's voice id>`. */
export interface ProviderVoiceRef {
  providerId: string;
  model: string;
  voiceId: string;
}

const REF = /^(prov_[A-Za-z0-9]{1,40})\/([^/]{0,200})\/(.{1,200})$/s;

/** The provider voice a voice id names, or undefined for a catalog voice. */
export function parseProviderVoice(id: string): ProviderVoiceRef | undefined {
  const match = REF.exec(id);
  return match ? { providerId: match[1]!, model: match[2]!, voiceId: match[3]! } : undefined;
}

/** The default speech model of each API, when a persona names none. */
const DEFAULT_MODEL = { openai: 'tts-1', elevenlabs: ELEVENLABS_DEFAULT_MODEL } as const;

/**
 * `text` in a provider voice as samples as they come: ElevenLabs streams (22.05 kHz); an
 * OpenAI-compatible provider's `pcm` (24 kHz) is read whole and given as one chunk.
 */
export async function providerSpeechStream(
  provider: VoiceProviderAccount,
  policy: OutboundPolicy,
  ref: ProviderVoiceRef,
  text: string,
): Promise<ReadAheadPcm> {
  const model = ref.model || DEFAULT_MODEL[provider.api];
  if (provider.api === 'elevenlabs')
    return elevenLabsSpeechStream(provider, policy, { voiceId: ref.voiceId, model, text });
  const { baseUrl, apiKey } = provider;
  const whole = await remoteSpeechPcm({ baseUrl, apiKey, model, voices: [] }, policy, ref.voiceId, text);
  return new ReadAheadPcm(whole.sampleRate, oneChunk(whole));
}

async function* oneChunk(speech: SpeechPcm): AsyncGenerator<Int16Array> {
  if (speech.pcm.length > 0) yield speech.pcm;
}

/** A voice of one of the account's providers, as GET /voices lists it. */
export interface ProviderVoice {
  provider: string;
  voiceId: string;
  name: string;
  description: string;
  previewUrl: string | null;
}

/** OpenAI's built-in voices (its speech API has no list endpoint). */
const OPENAI_VOICES = ['alloy', 'ash', 'ballad', 'coral', 'echo', 'fable', 'nova', 'onyx', 'sage', 'shimmer'];

/** The voices a provider offers: ElevenLabs lists the account's own; OpenAI's are fixed. */
export async function listProviderVoices(
  provider: Pick<VoiceProviderAccount, 'id' | 'api' | 'baseUrl' | 'apiKey'>,
  policy: OutboundPolicy,
): Promise<ProviderVoice[]> {
  if (provider.api === 'openai')
    return OPENAI_VOICES.map((voiceId) => ({
      provider: provider.id,
      voiceId,
      name: voiceId[0]!.toUpperCase() + voiceId.slice(1),
      description: 'An OpenAI speech voice',
      previewUrl: null,
    }));
  const voices = await elevenLabsVoices(provider, policy);
  return voices.map((v) => ({
    provider: provider.id,
    voiceId: v.voice_id,
    name: v.name ?? v.voice_id,
    description: [v.category, ...Object.values(v.labels ?? {})].filter(Boolean).join(', '),
    previewUrl: v.preview_url ?? null,
  }));
}

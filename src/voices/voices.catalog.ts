/**
 * The voice catalog: voices that really speak. The built-in ones run offline on eSpeak NG (a formant
 * synthesizer compiled to WebAssembly); an OpenAI-compatible speech endpoint, when configured, adds
 * its voices. Ids are stable: personas store them as `voice.voice_id`.
 */

import type { Config } from '../config/env';

export const GENDERS = ['male', 'female', 'neutral'] as const;
export type Gender = (typeof GENDERS)[number];

export const VOICE_PROVIDERS = ['espeak-ng', 'openai-compatible'] as const;
export type VoiceProvider = (typeof VOICE_PROVIDERS)[number];

/** Categories used by the catalog (the field is a free string in SPEC 2.11; these are the ones in use). */
export const VOICE_CATEGORIES = ['conversational', 'professional', 'narration', 'character'] as const;

/** A voice as the API shows it (SPEC 2.11 plus `provider`, `language` and `sampleText`). */
export interface Voice {
  id: string;
  name: string;
  description: string;
  gender: Gender;
  category: string;
  tags: string[];
  provider: VoiceProvider;
  /** BCP 47 language tag of the voice's pronunciation. */
  language: string;
  /** A sentence to preview the voice with. */
  sampleText: string;
}

/** How an eSpeak NG voice is made: a language voice, a variant and prosody. */
export interface EspeakSettings {
  /** Language voice identifier from eSpeak NG's list (e.g. `gmw/en-US`). */
  language: string;
  /** Variant file (`m1`-`m8`, `f1`-`f5`, `whisper`, `klatt2`…) applied with `+`. */
  variant: string;
  /** Words per minute; eSpeak's default is 175. */
  rate: number;
  /** Base pitch 0-100; eSpeak's default is 50. */
  pitch: number;
}

export interface CatalogVoice extends Voice {
  espeak?: EspeakSettings;
  /** The provider's own voice name (`openai-compatible`). */
  remoteVoice?: string;
}

/** `gmw/en-US+f2`: the name `set_voice` takes. */
export const engineVoiceName = (s: EspeakSettings) => `${s.language}+${s.variant}`;

type EspeakEntry = Omit<Voice, 'provider'> & { espeak: EspeakSettings };

const es = (
  language: string,
  variant: string,
  prosody: Partial<Pick<EspeakSettings, 'rate' | 'pitch'>> = {},
): EspeakSettings => ({ language, variant, rate: prosody.rate ?? 175, pitch: prosody.pitch ?? 50 });

const ESPEAK_VOICES: EspeakEntry[] = [
  {
    id: 'espeak-en-us-aria',
    name: 'Aria',
    description: 'Bright, friendly American English; a good default for support and booking agents.',
    gender: 'female',
    category: 'conversational',
    tags: ['friendly', 'warm', 'american'],
    language: 'en-US',
    sampleText: "Hi, I'm Aria. How can I help you today?",
    espeak: es('gmw/en-US', 'f2', { rate: 170 }),
  },
  {
    id: 'espeak-en-us-miles',
    name: 'Miles',
    description: 'Relaxed, even American English male voice for everyday conversations.',
    gender: 'male',
    category: 'conversational',
    tags: ['calm', 'casual', 'american'],
    language: 'en-US',
    sampleText: "Hey, I'm Miles. What can I do for you?",
    espeak: es('gmw/en-US', 'm3'),
  },
  {
    id: 'espeak-en-us-grace',
    name: 'Grace',
    description: 'Clear, measured American English for banking, insurance and healthcare lines.',
    gender: 'female',
    category: 'professional',
    tags: ['clear', 'measured', 'american'],
    language: 'en-US',
    sampleText: 'Thank you for calling. Your appointment is confirmed for Tuesday at ten.',
    espeak: es('gmw/en-US', 'f4', { rate: 160 }),
  },
  {
    id: 'espeak-en-us-quinn',
    name: 'Quinn',
    description: 'A mid-pitched, gender-neutral American English voice for assistants and notifications.',
    gender: 'neutral',
    category: 'professional',
    tags: ['neutral', 'assistant', 'american'],
    language: 'en-US',
    sampleText: 'Your order has shipped and should arrive on Friday.',
    espeak: es('gmw/en-US', 'f5', { pitch: 30 }),
  },
  {
    id: 'espeak-en-us-walter',
    name: 'Walter',
    description: 'Slow, low American English male voice for stories and long-form reading.',
    gender: 'male',
    category: 'narration',
    tags: ['deep', 'storytelling', 'american'],
    language: 'en-US',
    sampleText: 'It was late in the evening when the last train pulled into the station.',
    espeak: es('gmw/en-US', 'm7', { rate: 150, pitch: 35 }),
  },
  {
    id: 'espeak-en-us-nyc-tony',
    name: 'Tony',
    description: 'Fast-talking New York City accent for characters and playful agents.',
    gender: 'male',
    category: 'character',
    tags: ['new-york', 'playful', 'accent'],
    language: 'en-US',
    sampleText: "Hey, how you doin'? Let me grab that for ya.",
    espeak: es('gmw/en-US-nyc', 'm2', { rate: 190 }),
  },
  {
    id: 'espeak-en-us-hush',
    name: 'Hush',
    description: 'A whispered voice for meditation, sleep stories and quiet characters.',
    gender: 'neutral',
    category: 'character',
    tags: ['whisper', 'soft', 'calm'],
    language: 'en-US',
    sampleText: 'Close your eyes, and take a slow, deep breath.',
    espeak: es('gmw/en-US', 'whisper', { rate: 150 }),
  },
  {
    id: 'espeak-en-us-bolt',
    name: 'Bolt',
    description: 'A synthetic, robotic voice for games, toys and sci-fi characters.',
    gender: 'neutral',
    category: 'character',
    tags: ['robotic', 'synthetic', 'fun'],
    language: 'en-US',
    sampleText: 'Greetings, human. All systems are operational.',
    espeak: es('gmw/en-US', 'klatt2', { rate: 160 }),
  },
  {
    id: 'espeak-en-gb-olivia',
    name: 'Olivia',
    description: 'Warm British English narrator for audiobooks and guided tours.',
    gender: 'female',
    category: 'narration',
    tags: ['british', 'warm', 'storytelling'],
    language: 'en-GB',
    sampleText: 'Welcome to the museum. Our tour begins in the east gallery.',
    espeak: es('gmw/en', 'f3', { rate: 160 }),
  },
  {
    id: 'espeak-en-gb-arthur',
    name: 'Arthur',
    description: 'Received Pronunciation British English; formal and precise.',
    gender: 'male',
    category: 'professional',
    tags: ['british', 'formal', 'received-pronunciation'],
    language: 'en-GB',
    sampleText: 'Good afternoon. I shall put you through to the right department.',
    espeak: es('gmw/en-GB-x-rp', 'm1'),
  },
  {
    id: 'espeak-en-gb-callum',
    name: 'Callum',
    description: 'Friendly Scottish English voice.',
    gender: 'male',
    category: 'conversational',
    tags: ['scottish', 'friendly', 'accent'],
    language: 'en-GB-scotland',
    sampleText: "Hello there, I'm Callum. Lovely to hear from you.",
    espeak: es('gmw/en-GB-scotland', 'm4'),
  },
  {
    id: 'espeak-es-es-lucia',
    name: 'Lucía',
    description: 'Castilian Spanish, bright and friendly.',
    gender: 'female',
    category: 'conversational',
    tags: ['spanish', 'spain', 'friendly'],
    language: 'es-ES',
    sampleText: 'Hola, soy Lucía. ¿En qué puedo ayudarte hoy?',
    espeak: es('roa/es', 'f1'),
  },
  {
    id: 'espeak-es-419-mateo',
    name: 'Mateo',
    description: 'Latin American Spanish male voice for support lines across the Americas.',
    gender: 'male',
    category: 'conversational',
    tags: ['spanish', 'latin-america', 'warm'],
    language: 'es-419',
    sampleText: 'Hola, habla Mateo. Con gusto te ayudo con tu pedido.',
    espeak: es('roa/es-419', 'm2'),
  },
  {
    id: 'espeak-fr-fr-camille',
    name: 'Camille',
    description: 'Clear Parisian French for reception desks and appointment lines.',
    gender: 'female',
    category: 'professional',
    tags: ['french', 'france', 'clear'],
    language: 'fr-FR',
    sampleText: 'Bonjour, je suis Camille. Comment puis-je vous aider ?',
    espeak: es('roa/fr', 'f2'),
  },
  {
    id: 'espeak-fr-fr-louis',
    name: 'Louis',
    description: 'Calm French male narrator.',
    gender: 'male',
    category: 'narration',
    tags: ['french', 'france', 'storytelling'],
    language: 'fr-FR',
    sampleText: 'Il était une fois, dans un petit village au bord de la mer.',
    espeak: es('roa/fr', 'm5', { rate: 160 }),
  },
  {
    id: 'espeak-de-de-lena',
    name: 'Lena',
    description: 'Precise German for business and service hotlines.',
    gender: 'female',
    category: 'professional',
    tags: ['german', 'germany', 'precise'],
    language: 'de-DE',
    sampleText: 'Guten Tag, hier ist Lena. Wie kann ich Ihnen helfen?',
    espeak: es('gmw/de', 'f4'),
  },
  {
    id: 'espeak-de-de-jonas',
    name: 'Jonas',
    description: 'Easy-going German male voice.',
    gender: 'male',
    category: 'conversational',
    tags: ['german', 'germany', 'casual'],
    language: 'de-DE',
    sampleText: 'Hallo, ich bin Jonas. Was kann ich für dich tun?',
    espeak: es('gmw/de', 'm6'),
  },
  {
    id: 'espeak-it-it-giulia',
    name: 'Giulia',
    description: 'Lively Italian for restaurants, travel and retail.',
    gender: 'female',
    category: 'conversational',
    tags: ['italian', 'italy', 'lively'],
    language: 'it-IT',
    sampleText: 'Ciao, sono Giulia. Come posso aiutarti oggi?',
    espeak: es('roa/it', 'f1'),
  },
  {
    id: 'espeak-pt-br-rafael',
    name: 'Rafael',
    description: 'Brazilian Portuguese male voice, warm and relaxed.',
    gender: 'male',
    category: 'conversational',
    tags: ['portuguese', 'brazil', 'warm'],
    language: 'pt-BR',
    sampleText: 'Olá, eu sou o Rafael. Como posso ajudar você hoje?',
    espeak: es('roa/pt-BR', 'm3'),
  },
  {
    id: 'espeak-pt-br-beatriz',
    name: 'Beatriz',
    description: 'Brazilian Portuguese for customer service and scheduling.',
    gender: 'female',
    category: 'professional',
    tags: ['portuguese', 'brazil', 'clear'],
    language: 'pt-BR',
    sampleText: 'Bom dia! Sua consulta está confirmada para amanhã às nove.',
    espeak: es('roa/pt-BR', 'f2'),
  },
  {
    id: 'espeak-hi-in-priya',
    name: 'Priya',
    description: 'Hindi female voice for support lines in India.',
    gender: 'female',
    category: 'conversational',
    tags: ['hindi', 'india', 'friendly'],
    language: 'hi-IN',
    sampleText: 'नमस्ते, मैं प्रिया हूँ। मैं आपकी कैसे मदद कर सकती हूँ?',
    espeak: es('inc/hi', 'f5'),
  },
  {
    id: 'espeak-hi-in-arjun',
    name: 'Arjun',
    description: 'Hindi male voice, formal and steady.',
    gender: 'male',
    category: 'professional',
    tags: ['hindi', 'india', 'formal'],
    language: 'hi-IN',
    sampleText: 'नमस्कार, मैं अर्जुन बोल रहा हूँ। आपका स्वागत है।',
    espeak: es('inc/hi', 'm1'),
  },
];

/** The built-in, offline voices. */
export const ESPEAK_CATALOG: readonly CatalogVoice[] = ESPEAK_VOICES.map((v) => ({
  ...v,
  provider: 'espeak-ng' as const,
}));

/** What the six OpenAI voice names sound like, for the catalog entries of an OpenAI-compatible endpoint. */
const OPENAI_VOICE_PROFILES: Record<string, Pick<Voice, 'gender' | 'category' | 'tags' | 'description'>> = {
  alloy: {
    gender: 'neutral',
    category: 'conversational',
    tags: ['balanced', 'versatile'],
    description: 'Balanced, versatile voice.',
  },
  echo: {
    gender: 'male',
    category: 'conversational',
    tags: ['warm', 'clear'],
    description: 'Warm, clear male voice.',
  },
  fable: {
    gender: 'neutral',
    category: 'narration',
    tags: ['expressive', 'british', 'storytelling'],
    description: 'Expressive storyteller with a British lilt.',
  },
  onyx: {
    gender: 'male',
    category: 'narration',
    tags: ['deep', 'authoritative'],
    description: 'Deep, authoritative male voice.',
  },
  nova: {
    gender: 'female',
    category: 'conversational',
    tags: ['bright', 'energetic'],
    description: 'Bright, energetic female voice.',
  },
  shimmer: {
    gender: 'female',
    category: 'professional',
    tags: ['soft', 'clear'],
    description: 'Soft, clear female voice.',
  },
};

export const DEFAULT_REMOTE_VOICES = Object.keys(OPENAI_VOICE_PROFILES);

/** `openai-<name>` as a slug. */
export const remoteVoiceId = (name: string) =>
  `openai-${name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')}`;

/** Catalog entries for the voices of a configured OpenAI-compatible endpoint. */
export function remoteCatalog(names: readonly string[]): CatalogVoice[] {
  return names.map((name) => {
    const profile = OPENAI_VOICE_PROFILES[name.toLowerCase()] ?? {
      gender: 'neutral' as const,
      category: 'conversational',
      tags: [],
      description: `The "${name}" voice of the configured speech endpoint.`,
    };
    return {
      id: remoteVoiceId(name),
      name: name.charAt(0).toUpperCase() + name.slice(1),
      ...profile,
      tags: [...profile.tags, 'cloud'],
      provider: 'openai-compatible' as const,
      language: 'en',
      sampleText: `Hello! This is the ${name} voice. How can I help you today?`,
      remoteVoice: name,
    };
  });
}

/** What the catalog depends on: whether an OpenAI-compatible endpoint is configured, and its voices. */
export type CatalogConfig = Pick<Config, 'voices'>;

const remoteCatalogs = new WeakMap<object, CatalogVoice[]>();

/** Every voice: the built-in eSpeak NG voices, then the configured endpoint's (if any). */
export function catalog(config?: CatalogConfig): readonly CatalogVoice[] {
  const tts = config?.voices.tts;
  if (!tts) return ESPEAK_CATALOG;
  let all = remoteCatalogs.get(tts);
  if (!all) {
    all = [...ESPEAK_CATALOG, ...remoteCatalog(tts.voices)];
    remoteCatalogs.set(tts, all);
  }
  return all;
}

/** The catalog voice with this id (engine settings included), or undefined. */
export function findCatalogVoice(id: string, config?: CatalogConfig): CatalogVoice | undefined {
  return catalog(config).find((v) => v.id === id);
}

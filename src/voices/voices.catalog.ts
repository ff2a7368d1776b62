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

/**
 * Categories used by the catalog (the field is a free string in the API; these are the ones in use;
 * docs/voices.md "Catalog").
 */
export const VOICE_CATEGORIES = ['conversational', 'professional', 'narration', 'character'] as const;

/** A voice as the API shows it (docs/api-contract.md "Voice previews"). */
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

/** Words per minute and pitch, where they differ from eSpeak's defaults. */
type Prosody = Partial<Pick<EspeakSettings, 'rate' | 'pitch'>>;

const es = (language: string, variant: string, prosody: Prosody = {}): EspeakSettings => ({
  language,
  variant,
  rate: prosody.rate ?? 175,
  pitch: prosody.pitch ?? 50,
});

type VoiceCategory = (typeof VOICE_CATEGORIES)[number];

/**
 * A built-in voice: id, name, gender, category, language (BCP 47), eSpeak NG voice (language voice,
 * variant and prosody, 175 words per minute and pitch 50 unless given), tags; then its description
 * and sample text.
 */
type EspeakRow = readonly [
  id: string,
  name: string,
  gender: Gender,
  category: VoiceCategory,
  language: string,
  espeak: readonly [language: string, variant: string, prosody?: Prosody],
  tags: string[],
  description: string,
  sampleText: string,
];

// biome-ignore format: a table, one voice per row
const ESPEAK_VOICES: readonly EspeakRow[] = [
  ['espeak-en-us-aria', 'Aria', 'female', 'conversational', 'en-US', ['gmw/en-US', 'f2', { rate: 170 }], ['friendly', 'warm', 'american'],
    'Bright, friendly American English; a good default for support and booking agents.',
    "Hi, I'm Aria. How can I help you today?"],
  ['espeak-en-us-miles', 'Miles', 'male', 'conversational', 'en-US', ['gmw/en-US', 'm3'], ['calm', 'casual', 'american'],
    'Relaxed, even American English male voice for everyday conversations.',
    "Hey, I'm Miles. What can I do for you?"],
  ['espeak-en-us-grace', 'Grace', 'female', 'professional', 'en-US', ['gmw/en-US', 'f4', { rate: 160 }], ['clear', 'measured', 'american'],
    'Clear, measured American English for banking, insurance and healthcare lines.',
    'Thank you for calling. Your appointment is confirmed for Tuesday at ten.'],
  ['espeak-en-us-quinn', 'Quinn', 'neutral', 'professional', 'en-US', ['gmw/en-US', 'f5', { pitch: 30 }], ['neutral', 'assistant', 'american'],
    'A mid-pitched, gender-neutral American English voice for assistants and notifications.',
    'Your order has shipped and should arrive on Friday.'],
  ['espeak-en-us-walter', 'Walter', 'male', 'narration', 'en-US', ['gmw/en-US', 'm7', { rate: 150, pitch: 35 }], ['deep', 'storytelling', 'american'],
    'Slow, low American English male voice for stories and long-form reading.',
    'It was late in the evening when the last train pulled into the station.'],
  ['espeak-en-us-nyc-tony', 'Tony', 'male', 'character', 'en-US', ['gmw/en-US-nyc', 'm2', { rate: 190 }], ['new-york', 'playful', 'accent'],
    'Fast-talking New York City accent for characters and playful agents.',
    "Hey, how you doin'? Let me grab that for ya."],
  ['espeak-en-us-hush', 'Hush', 'neutral', 'character', 'en-US', ['gmw/en-US', 'whisper', { rate: 150 }], ['whisper', 'soft', 'calm'],
    'A whispered voice for meditation, sleep stories and quiet characters.',
    'Close your eyes, and take a slow, deep breath.'],
  ['espeak-en-us-bolt', 'Bolt', 'neutral', 'character', 'en-US', ['gmw/en-US', 'klatt2', { rate: 160 }], ['robotic', 'synthetic', 'fun'],
    'A synthetic, robotic voice for games, toys and sci-fi characters.',
    'Greetings, human. All systems are operational.'],
  ['espeak-en-gb-olivia', 'Olivia', 'female', 'narration', 'en-GB', ['gmw/en', 'f3', { rate: 160 }], ['british', 'warm', 'storytelling'],
    'Warm British English narrator for audiobooks and guided tours.',
    'Welcome to the museum. Our tour begins in the east gallery.'],
  ['espeak-en-gb-arthur', 'Arthur', 'male', 'professional', 'en-GB', ['gmw/en-GB-x-rp', 'm1'], ['british', 'formal', 'received-pronunciation'],
    'Received Pronunciation British English; formal and precise.',
    'Good afternoon. I shall put you through to the right department.'],
  ['espeak-en-gb-callum', 'Callum', 'male', 'conversational', 'en-GB-scotland', ['gmw/en-GB-scotland', 'm4'], ['scottish', 'friendly', 'accent'],
    'Friendly Scottish English voice.',
    "Hello there, I'm Callum. Lovely to hear from you."],
  ['espeak-es-es-lucia', 'Lucía', 'female', 'conversational', 'es-ES', ['roa/es', 'f1'], ['spanish', 'spain', 'friendly'],
    'Castilian Spanish, bright and friendly.',
    'Hola, soy Lucía. ¿En qué puedo ayudarte hoy?'],
  ['espeak-es-419-mateo', 'Mateo', 'male', 'conversational', 'es-419', ['roa/es-419', 'm2'], ['spanish', 'latin-america', 'warm'],
    'Latin American Spanish male voice for support lines across the Americas.',
    'Hola, habla Mateo. Con gusto te ayudo con tu pedido.'],
  ['espeak-fr-fr-camille', 'Camille', 'female', 'professional', 'fr-FR', ['roa/fr', 'f2'], ['french', 'france', 'clear'],
    'Clear Parisian French for reception desks and appointment lines.',
    'Bonjour, je suis Camille. Comment puis-je vous aider ?'],
  ['espeak-fr-fr-louis', 'Louis', 'male', 'narration', 'fr-FR', ['roa/fr', 'm5', { rate: 160 }], ['french', 'france', 'storytelling'],
    'Calm French male narrator.',
    'Il était une fois, dans un petit village au bord de la mer.'],
  ['espeak-de-de-lena', 'Lena', 'female', 'professional', 'de-DE', ['gmw/de', 'f4'], ['german', 'germany', 'precise'],
    'Precise German for business and service hotlines.',
    'Guten Tag, hier ist Lena. Wie kann ich Ihnen helfen?'],
  ['espeak-de-de-jonas', 'Jonas', 'male', 'conversational', 'de-DE', ['gmw/de', 'm6'], ['german', 'germany', 'casual'],
    'Easy-going German male voice.',
    'Hallo, ich bin Jonas. Was kann ich für dich tun?'],
  ['espeak-it-it-giulia', 'Giulia', 'female', 'conversational', 'it-IT', ['roa/it', 'f1'], ['italian', 'italy', 'lively'],
    'Lively Italian for restaurants, travel and retail.',
    'Ciao, sono Giulia. Come posso aiutarti oggi?'],
  ['espeak-pt-br-rafael', 'Rafael', 'male', 'conversational', 'pt-BR', ['roa/pt-BR', 'm3'], ['portuguese', 'brazil', 'warm'],
    'Brazilian Portuguese male voice, warm and relaxed.',
    'Olá, eu sou o Rafael. Como posso ajudar você hoje?'],
  ['espeak-pt-br-beatriz', 'Beatriz', 'female', 'professional', 'pt-BR', ['roa/pt-BR', 'f2'], ['portuguese', 'brazil', 'clear'],
    'Brazilian Portuguese for customer service and scheduling.',
    'Bom dia! Sua consulta está confirmada para amanhã às nove.'],
  ['espeak-hi-in-priya', 'Priya', 'female', 'conversational', 'hi-IN', ['inc/hi', 'f5'], ['hindi', 'india', 'friendly'],
    'Hindi female voice for support lines in India.',
    'नमस्ते, मैं प्रिया हूँ। मैं आपकी कैसे मदद कर सकती हूँ?'],
  ['espeak-hi-in-arjun', 'Arjun', 'male', 'professional', 'hi-IN', ['inc/hi', 'm1'], ['hindi', 'india', 'formal'],
    'Hindi male voice, formal and steady.',
    'नमस्कार, मैं अर्जुन बोल रहा हूँ। आपका स्वागत है।'],
];

/** A built-in voice's row as a catalog voice. */
const espeakVoice = ([
  id,
  name,
  gender,
  category,
  language,
  [engineLanguage, variant, prosody],
  tags,
  description,
  sampleText,
]: EspeakRow): CatalogVoice => ({
  id,
  name,
  description,
  gender,
  category,
  tags,
  language,
  sampleText,
  espeak: es(engineLanguage, variant, prosody),
  provider: 'espeak-ng',
});

/** The built-in, offline voices. */
export const ESPEAK_CATALOG: readonly CatalogVoice[] = ESPEAK_VOICES.map(espeakVoice);

type VoiceProfile = Pick<Voice, 'gender' | 'category' | 'tags' | 'description'>;

/** What an OpenAI voice sounds like: gender, category, tags, description. */
type ProfileRow = readonly [gender: Gender, category: VoiceCategory, tags: string[], description: string];

// biome-ignore format: a table, one voice per row
const OPENAI_VOICE_ROWS: Record<string, ProfileRow> = {
  alloy: ['neutral', 'conversational', ['balanced', 'versatile'], 'Balanced, versatile voice.'],
  echo: ['male', 'conversational', ['warm', 'clear'], 'Warm, clear male voice.'],
  fable: ['neutral', 'narration', ['expressive', 'british', 'storytelling'], 'Expressive storyteller with a British lilt.'],
  onyx: ['male', 'narration', ['deep', 'authoritative'], 'Deep, authoritative male voice.'],
  nova: ['female', 'conversational', ['bright', 'energetic'], 'Bright, energetic female voice.'],
  shimmer: ['female', 'professional', ['soft', 'clear'], 'Soft, clear female voice.'],
};

/** What the six OpenAI voice names sound like, for the catalog entries of an OpenAI-compatible endpoint. */
const OPENAI_VOICE_PROFILES: Record<string, VoiceProfile> = Object.fromEntries(
  Object.entries(OPENAI_VOICE_ROWS).map(([voice, [gender, category, tags, description]]) => [
    voice,
    { gender, category, tags, description },
  ]),
);

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

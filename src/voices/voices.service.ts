import type { AppContext } from '../common/context';
import { ApiError, notFound, validationFailed } from '../http/errors';
import { NothingToSayError, type Preview } from './speech';
import { PoolBusyError } from './speech-pool';
import {
  type CatalogConfig,
  type CatalogVoice,
  catalog,
  findCatalogVoice,
  type Gender,
  type Voice,
  type VoiceProvider,
} from './voices.catalog';

export interface VoiceFilters {
  gender?: Gender;
  category?: string;
  language?: string;
  provider?: VoiceProvider;
}

/** The API's view of a voice (no engine settings). */
export function publicVoice(v: CatalogVoice): Voice {
  const { id, name, description, gender, category, tags, provider, language, sampleText } = v;
  return { id, name, description, gender, category, tags: [...tags], provider, language, sampleText };
}

/**
 * The voice with this id, or undefined. Pass the config to include the voices of a configured
 * OpenAI-compatible endpoint (personas validate `voice.voice_id` and `voice.provider` with it).
 */
export function findVoice(id: string, config?: CatalogConfig): Voice | undefined {
  const voice = findCatalogVoice(id, config);
  return voice && publicVoice(voice);
}

/** Voices matching every given filter exactly (language case-insensitively, as BCP 47 tags are). */
export function listVoices(filters: VoiceFilters = {}, config?: CatalogConfig): Voice[] {
  const language = filters.language?.toLowerCase();
  return catalog(config)
    .filter(
      (v) =>
        (!filters.gender || v.gender === filters.gender) &&
        (!filters.category || v.category === filters.category) &&
        (!language || v.language.toLowerCase() === language) &&
        (!filters.provider || v.provider === filters.provider),
    )
    .map(publicVoice);
}

/** Seconds a client waits before retrying when every speech thread is busy and the queue is full. */
export const PREVIEW_RETRY_AFTER_SECONDS = 1;

/** POST /voices/preview: speaks `text` in the voice (404 for an unknown voice). */
export async function previewVoice(
  ctx: Pick<AppContext, 'config' | 'speech'>,
  input: { voice_id: string; text: string },
): Promise<Preview> {
  try {
    const spoken = await ctx.speech.speak(input.voice_id, input.text);
    if (!spoken) throw notFound('Voice');
    return spoken.preview;
  } catch (error) {
    if (error instanceof NothingToSayError) throw validationFailed(['text: has nothing to speak']);
    if (error instanceof PoolBusyError) {
      throw new ApiError(
        503,
        'SERVICE_UNAVAILABLE',
        `Too many previews at once; retry shortly (${error.message})`,
      );
    }
    throw error;
  }
}

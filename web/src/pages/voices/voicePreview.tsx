import { Text } from '@mantine/core';
import { queryOptions, useMutation } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import type { components } from '../../api/schema';

type Preview = components['schemas']['VoicePreview']['preview'];

/**
 * GET /voices unfiltered: the catalog, and the voices of the account's voice providers with those
 * that could not be listed (the persona form's voice picker). Connecting or deleting a provider
 * invalidates it.
 */
export const voiceListQuery = queryOptions({
  queryKey: ['voices'],
  queryFn: async () => unwrap(await api.GET('/api/v1/developers/voices')),
  staleTime: 300_000,
});

/** The whole catalog (the Voices page and the conversation's languages), from the same cache entry. */
export const allVoicesQuery = queryOptions({ ...voiceListQuery, select: (list) => list.voices });

/** What a preview says, in which voice: a catalog voice, or a provider's (its `provider`, `model`). */
export interface PreviewRequest {
  voiceId: string;
  text: string;
  provider?: string;
  model?: string;
}

/** POST /voices/preview: a voice saying a text, as audio to play in the page. */
export function useVoicePreview() {
  return useMutation({
    mutationFn: async ({ voiceId, text, provider, model }: PreviewRequest) =>
      unwrap(
        await api.POST('/api/v1/developers/voices/preview', {
          body: { voice_id: voiceId, text, ...(provider ? { provider, ...(model ? { model } : {}) } : {}) },
        }),
      ).preview,
  });
}

/** A preview's audio, playing as it arrives, and the words it says. */
export function PreviewPlayer({ preview, voiceName }: { preview: Preview; voiceName: string }) {
  return (
    <>
      {/* biome-ignore lint/a11y/useMediaCaption: the preview's words are shown under it */}
      <audio
        controls
        autoPlay
        src={preview.audioUrl}
        aria-label={`Preview of ${voiceName}`}
        style={{ width: '100%' }}
      />
      <Text size="xs">“{preview.text}”</Text>
    </>
  );
}

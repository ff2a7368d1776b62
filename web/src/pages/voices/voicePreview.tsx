import { Text } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import type { components } from '../../api/schema';

type Preview = components['schemas']['VoicePreview']['preview'];

/** GET /voices, the whole catalog (the Voices page and the persona form's voice picker share it). */
export const allVoicesQuery = {
  queryKey: ['voices'],
  queryFn: async () => unwrap(await api.GET('/api/v1/developers/voices')).voices,
  staleTime: 300_000,
};

/** POST /voices/preview: a voice saying a text, as audio to play in the page. */
export function useVoicePreview() {
  return useMutation({
    mutationFn: async ({ voiceId, text }: { voiceId: string; text: string }) =>
      unwrap(await api.POST('/api/v1/developers/voices/preview', { body: { voice_id: voiceId, text } }))
        .preview,
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

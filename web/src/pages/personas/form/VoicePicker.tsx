import { Button, Fieldset, Group, Select, Stack, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import type { components } from '../../../api/schema';
import { ErrorAlert } from '../../../components/ui';
import { allVoicesQuery, PreviewPlayer, useVoicePreview } from '../../voices/voicePreview';
import { useField } from './FormContext';
import { asText } from './manifestPaths';

type Voice = components['schemas']['Voice'];

const optionLabel = (v: Voice) => `${v.name} — ${v.language}, ${v.gender}, ${v.category}`;

/** The chosen voice's sample sentence, played in the page. */
function PlayVoice({ voice }: { voice: Voice }) {
  const preview = useVoicePreview();
  const current = preview.data && preview.variables?.voiceId === voice.id ? preview.data : undefined;
  return (
    <Stack gap={6}>
      <Group gap="xs">
        <Button
          size="xs"
          variant="default"
          onClick={() => preview.mutate({ voiceId: voice.id, text: voice.sampleText })}
          loading={preview.isPending}
        >
          Play {voice.name}
        </Button>
        <Text size="xs">{voice.description}</Text>
      </Group>
      <ErrorAlert error={preview.error} title="No preview" />
      {current ? <PreviewPlayer preview={current} voiceName={voice.name} /> : null}
    </Stack>
  );
}

/**
 * The voice: one of the catalog's (GET /voices), which sets both `voice.voice_id` and
 * `voice.provider`, with a button that plays it. An id the catalog does not know stays listed, marked.
 */
export function VoicePicker() {
  const field = useField('voice.voice_id');
  const group = useField('voice');
  const voices = useQuery(allVoicesQuery);
  const chosenId = asText(field.value);
  const chosen = voices.data?.find((v) => v.id === chosenId);
  const data = (voices.data ?? []).map((v) => ({ value: v.id, label: optionLabel(v) }));
  if (chosenId && voices.data && !chosen) {
    data.unshift({ value: chosenId, label: `${chosenId} (not in the catalog)` });
  }
  const choose = (id: string | null) => {
    const voice = voices.data?.find((v) => v.id === id);
    group.set(voice ? { voice_id: voice.id, provider: voice.provider } : undefined);
  };
  return (
    <Fieldset legend="Voice">
      <Stack gap="sm">
        <Select
          id={field.id}
          label="Voice"
          withAsterisk
          description={`Required; a voice of the catalog (sets voice.voice_id and voice.provider${
            chosen ? `: ${chosen.provider}` : ''
          })`}
          placeholder={voices.isPending ? 'Loading voices…' : 'Choose a voice'}
          data={data}
          value={chosenId || null}
          onChange={choose}
          onBlur={field.touch}
          searchable
          nothingFoundMessage="No voice matches"
          error={field.error}
          disabled={field.disabled}
        />
        <ErrorAlert error={voices.error} title="The voices did not load" />
        {chosen ? <PlayVoice key={chosen.id} voice={chosen} /> : null}
      </Stack>
    </Fieldset>
  );
}

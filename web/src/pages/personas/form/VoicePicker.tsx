import { Alert, Button, Fieldset, Group, List, Select, Stack, Text } from '@mantine/core';
import { ErrorAlert } from '../../../components/ui';
import { PreviewPlayer, useVoicePreview } from '../../voices/voicePreview';
import { useField } from './FormContext';
import { TextField } from './fields';
import { asText } from './manifestPaths';
import {
  choiceKey,
  defaultVoiceModel,
  isProviderId,
  PROVIDER_SAMPLE,
  useVoiceChoices,
  type VoiceChoice,
} from './voiceChoices';

/** The chosen voice saying its sample (a provider voice: with the model picked), played in the page. */
function PlayVoice({ choice, model }: { choice: VoiceChoice; model: string }) {
  const preview = useVoicePreview();
  const request =
    choice.source === 'catalog'
      ? { voiceId: choice.voice.id, text: choice.voice.sampleText }
      : {
          voiceId: choice.voice.voiceId,
          text: PROVIDER_SAMPLE,
          provider: choice.voice.provider,
          model: model || undefined,
        };
  const current = preview.data && preview.variables?.voiceId === request.voiceId ? preview.data : undefined;
  return (
    <Stack gap={6}>
      <Group gap="xs">
        <Button
          size="xs"
          variant="default"
          onClick={() => preview.mutate(request)}
          loading={preview.isPending}
        >
          Play {choice.voice.name}
        </Button>
        <Text size="xs">
          {choice.source === 'provider' ? `${choice.providerName}: ` : ''}
          {choice.voice.description}
        </Text>
      </Group>
      <ErrorAlert error={preview.error} title="No preview" />
      {current ? <PreviewPlayer preview={current} voiceName={choice.voice.name} /> : null}
    </Stack>
  );
}

/** Providers whose voices GET /voices could not list: the others are still offered. */
function ProviderErrors({ failed }: { failed: { name: string; message: string }[] }) {
  if (failed.length === 0) return null;
  return (
    <Alert color="yellow" title="Some providers' voices are not listed">
      <List size="sm">
        {failed.map((f) => (
          <List.Item key={f.name}>
            {f.name}: {f.message}
          </List.Item>
        ))}
      </List>
    </Alert>
  );
}

/**
 * The voice: one of the catalog's, or of one of the account's voice providers (grouped by provider),
 * from GET /voices. Choosing sets `voice.voice_id` and `voice.provider` (a provider voice: the
 * provider's id and its own voice id, with an optional `voice.model`). An id no list has stays
 * listed, marked.
 */
export function VoicePicker() {
  const field = useField('voice.voice_id');
  const group = useField('voice');
  const provider = asText(useField('voice.provider').value);
  const model = asText(useField('voice.model').value);
  const voices = useVoiceChoices();
  const chosenId = asText(field.value);
  const key = chosenId ? choiceKey(provider, chosenId) : null;
  const chosen = voices.choices.find((c) => c.key === key);
  const data = [...voices.groups];
  if (key && !voices.pending && !chosen) {
    const where = isProviderId(provider)
      ? `${voices.nameOf(provider)}, not listed now`
      : 'not in the catalog';
    data.unshift({ group: 'Chosen', items: [{ value: key, label: `${chosenId} (${where})` }] });
  }
  const choose = (value: string | null) => {
    const next = voices.choices.find((c) => c.key === value);
    if (!next) return group.set(undefined);
    if (next.source === 'catalog')
      return group.set({ voice_id: next.voice.id, provider: next.voice.provider });
    const sameProvider = next.voice.provider === provider;
    group.set({
      voice_id: next.voice.voiceId,
      provider: next.voice.provider,
      ...(sameProvider && model ? { model } : {}),
    });
  };
  return (
    <Fieldset legend="Voice">
      <Stack gap="sm">
        <Select
          id={field.id}
          label="Voice"
          withAsterisk
          description={`Required; a catalog voice or one of your voice providers' (sets voice.voice_id and voice.provider${
            chosen ? `: ${chosen.source === 'catalog' ? chosen.voice.provider : chosen.providerName}` : ''
          })`}
          placeholder={voices.pending ? 'Loading voices…' : 'Choose a voice'}
          data={data.filter((g) => g.items.length > 0)}
          value={key}
          onChange={choose}
          onBlur={field.touch}
          searchable
          nothingFoundMessage="No voice matches"
          error={field.error}
          disabled={field.disabled}
        />
        <ErrorAlert error={voices.error} title="The voices did not load" />
        <ProviderErrors failed={voices.failed} />
        {isProviderId(provider) ? (
          <TextField
            path="voice.model"
            label="Speech model"
            rule="Optional; the provider's model, 1–200 characters"
            placeholder={chosen?.source === 'provider' ? defaultVoiceModel(chosen.api) : undefined}
            max={200}
          />
        ) : null}
        {chosen ? <PlayVoice key={chosen.key} choice={chosen} model={model} /> : null}
      </Stack>
    </Fieldset>
  );
}

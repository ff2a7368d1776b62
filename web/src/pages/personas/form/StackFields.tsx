import { Anchor, Fieldset, Select, SimpleGrid, Stack, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { providersQuery } from '../../../api/queries';
import { ErrorAlert } from '../../../components/ui';
import { useField } from './FormContext';
import { TextField } from './fields';
import { asText } from './manifestPaths';

/** The select's value for "no provider named": the platform's default. */
const PLATFORM = 'platform';

/**
 * A provider of the account of `kind` (GET /providers), or the platform's default (the field unset).
 * A provider id the account no longer has stays listed, marked, so the API's problem with it shows.
 */
export function ProviderSelect(props: {
  path: string;
  kind: 'chat' | 'transcription';
  label: string;
  rule: string;
}) {
  const field = useField(props.path);
  const providers = useQuery(providersQuery());
  const value = asText(field.value);
  const mine = (providers.data ?? []).filter((p) => p.kind === props.kind);
  const data = [
    { value: PLATFORM, label: 'Platform default' },
    ...mine.map((p) => ({ value: p.id, label: p.name })),
  ];
  if (value && providers.data && !mine.some((p) => p.id === value)) {
    data.push({ value, label: `${value} (not one of your ${props.kind} providers)` });
  }
  return (
    <Stack gap={4}>
      <Select
        id={field.id}
        label={props.label}
        description={props.rule}
        data={data}
        value={value || PLATFORM}
        onChange={(next) => field.set(!next || next === PLATFORM ? undefined : next)}
        onBlur={field.touch}
        allowDeselect={false}
        error={field.error}
        disabled={field.disabled}
      />
      <ErrorAlert error={providers.error} title="Your providers did not load" />
    </Stack>
  );
}

/** conversation.transcriber: how the caller's speech becomes text (provider, model, language). */
export function TranscriberFields() {
  return (
    <Fieldset legend="Transcriber" variant="unstyled">
      <Stack gap="sm">
        <Text size="xs">
          How the caller's speech becomes text. Connect your own on the{' '}
          <Anchor component={Link} to="/providers" size="xs">
            Providers
          </Anchor>{' '}
          page; without one, the platform's.
        </Text>
        <SimpleGrid cols={{ base: 1, sm: 3 }} spacing="sm">
          <ProviderSelect
            path="conversation.transcriber.provider"
            kind="transcription"
            label="Transcription provider"
            rule="Platform default, or one of your transcription providers"
          />
          <TextField
            path="conversation.transcriber.model"
            label="Transcription model"
            rule="Optional; 1–200 characters (default whisper-1)"
            placeholder="whisper-1"
            max={200}
          />
          <TextField
            path="conversation.transcriber.language"
            label="Spoken language"
            rule="Optional; ISO 639-1 or BCP 47 (en, pt-BR), a hint"
            placeholder="en"
            max={35}
          />
        </SimpleGrid>
      </Stack>
    </Fieldset>
  );
}

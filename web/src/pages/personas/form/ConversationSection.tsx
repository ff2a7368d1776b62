import { Autocomplete, Fieldset, NumberInput, SimpleGrid, Stack } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { allVoicesQuery } from '../../voices/voicePreview';
import { useField } from './FormContext';
import { LongTextField, RangeField, TextField } from './fields';
import { asNumber, asText } from './manifestPaths';
import { ProviderSelect, TranscriberFields } from './StackFields';

/** conversation.language: a BCP 47 tag, typed or picked from the catalog voices' languages. */
function LanguageField() {
  const field = useField('conversation.language');
  const voices = useQuery(allVoicesQuery);
  const languages = [...new Set((voices.data ?? []).map((v) => v.language))].sort();
  return (
    <Autocomplete
      id={field.id}
      label="Language"
      description="A BCP 47 tag, e.g. en-US; best the voice's language (otherwise a warning)"
      data={languages}
      value={asText(field.value)}
      onChange={(next) => field.set(next === '' ? undefined : next)}
      onBlur={field.touch}
      error={field.error}
      disabled={field.disabled}
    />
  );
}

/** conversation.model.maxTokens: a whole number, 1–16 384; empty is the platform's default. */
function MaxTokensField() {
  const field = useField('conversation.model.maxTokens');
  return (
    <NumberInput
      id={field.id}
      label="Reply token limit"
      description="Optional; a whole number from 1 to 16 384"
      value={asNumber(field.value) ?? ''}
      onChange={(next) => field.set(next === '' ? undefined : Number(next))}
      onBlur={field.touch}
      min={1}
      max={16_384}
      allowDecimal={false}
      allowNegative={false}
      thousandSeparator=" "
      error={field.error}
      disabled={field.disabled}
    />
  );
}

/** conversation: the agent's own prompt, its language, the model that speaks for it and its transcriber. */
export function ConversationSection() {
  return (
    <Fieldset legend="Conversation">
      <Stack gap="sm">
        <LongTextField
          path="conversation.instructions"
          label="Instructions"
          rule="The agent's own prompt, after its identity in the system prompt; at most 8 000 characters"
          max={8000}
          minRows={5}
        />
        <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="sm">
          <LanguageField />
          <ProviderSelect
            path="conversation.model.provider"
            kind="chat"
            label="Model provider"
            rule="Platform default, or one of your chat providers (Providers page)"
          />
        </SimpleGrid>
        <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="sm">
          <TextField
            path="conversation.model.name"
            label="Model"
            rule="Optional; 1–200 characters (empty: the platform's model name; with your own provider, name one of its models)"
            max={200}
          />
          <MaxTokensField />
        </SimpleGrid>
        <RangeField
          path="conversation.model.temperature"
          label="Temperature"
          rule="Optional; between 0 and 2 (higher is more varied)"
          min={0}
          max={2}
          step={0.1}
          unsetAt={1}
          unsetText="default"
        />
        <TranscriberFields />
      </Stack>
    </Fieldset>
  );
}

import { Fieldset, Select, SimpleGrid, Stack, Switch } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../../../api/client';
import { useField } from './FormContext';
import { ChipsField, LongTextField, RangeField, TextField } from './fields';
import { KnowledgeBasesField } from './KnowledgeBasesField';
import { asText } from './manifestPaths';

/** identity: who the persona is. */
export function IdentitySection() {
  return (
    <Fieldset legend="Identity">
      <Stack gap="sm">
        <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="sm">
          <TextField path="identity.name" label="Name" required rule="Required; 1–80 characters" max={80} />
          <TextField
            path="identity.id"
            label="Slug"
            required
            rule="Required; 3–64 lowercase letters, digits and single hyphens, unique among your personas"
            max={64}
          />
        </SimpleGrid>
        <TextField path="identity.tagline" label="Tagline" rule="At most 120 characters" max={120} />
        <LongTextField
          path="identity.description"
          label="Description"
          required
          rule="Required; 20–2000 characters (under 50 draws a warning)"
          max={2000}
        />
        <ChipsField
          path="identity.aliases"
          label="Aliases"
          rule="Other names callers use; at most 10, all different"
          maxItems={10}
        />
      </Stack>
    </Fieldset>
  );
}

const DIALS = [
  ['personality.warmth', 'Warmth', '0 cool, 1 warm'],
  ['personality.humor_level', 'Humor', '0 serious, 1 playful'],
  ['personality.directness', 'Directness', '0 gentle, 1 blunt'],
  ['personality.formality', 'Formality', '0 casual, 1 formal'],
] as const;

/** personality: four dials from 0 to 1, and traits. */
export function PersonalitySection() {
  return (
    <Fieldset legend="Personality">
      <Stack gap="sm">
        <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="md">
          {DIALS.map(([path, label, ends]) => (
            <RangeField
              key={path}
              path={path}
              label={label}
              required
              rule={`Required; between 0 and 1 (${ends})`}
              min={0}
              max={1}
              step={0.05}
              unsetAt={0.5}
            />
          ))}
        </SimpleGrid>
        <ChipsField
          path="personality.traits"
          label="Traits"
          required
          rule="Required; 1–10 words, e.g. patient, precise"
          maxItems={10}
        />
      </Stack>
    </Fieldset>
  );
}

const categoryLabel = (category: string) => category.replaceAll('_', ' ');

/** knowledge: the category (GET /personas/categories) and the topics in and out of scope. */
export function KnowledgeSection() {
  const field = useField('knowledge.category');
  const categories = useQuery({
    queryKey: ['persona-categories'],
    queryFn: async () => unwrap(await api.GET('/api/v1/developers/personas/categories')).categories,
    staleTime: Infinity,
  });
  const value = asText(field.value);
  const data: { value: string; label: string }[] = (categories.data ?? []).map((c) => ({
    value: c,
    label: categoryLabel(c),
  }));
  if (value && categories.data && !categories.data.some((c) => c === value)) {
    data.unshift({ value, label: `${value} (not a category)` });
  }
  return (
    <Fieldset legend="Knowledge">
      <Stack gap="sm">
        <Select
          id={field.id}
          label="Category"
          withAsterisk
          description="Required; one of the marketplace's categories"
          placeholder={categories.isPending ? 'Loading categories…' : 'Choose a category'}
          data={data}
          value={value || null}
          onChange={(next) => field.set(next ?? undefined)}
          onBlur={field.touch}
          error={field.error ?? (categories.error ? 'The categories did not load' : undefined)}
          disabled={field.disabled}
        />
        <ChipsField
          path="knowledge.domains"
          label="Domains"
          rule="What it knows about; up to 100"
          maxItems={100}
        />
        <ChipsField
          path="knowledge.expertise_tags"
          label="Expertise tags"
          rule="Search tags; up to 100"
          maxItems={100}
        />
        <ChipsField
          path="knowledge.out_of_scope_topics"
          label="Out-of-scope topics"
          rule="Topics the agent declines; none draws a warning"
          maxItems={100}
        />
        <KnowledgeBasesField />
      </Stack>
    </Fieldset>
  );
}

/** behaviors: what the agent says, and whether its calls are recorded. */
export function BehaviorsSection() {
  const recording = useField('behaviors.record_calls');
  return (
    <Fieldset legend="Behaviors">
      <Stack gap="sm">
        <ChipsField
          path="behaviors.greetings"
          label="Greetings"
          required
          sentences
          rule="Required; at least one, each at most 200 characters (over 120 draws a warning)"
          maxItems={50}
        />
        <ChipsField
          path="behaviors.backchannels"
          label="Backchannels"
          sentences
          rule="Said while listening, e.g. mm-hm; none draws a warning"
          maxItems={50}
        />
        <ChipsField
          path="behaviors.thinking_sounds"
          label="Thinking sounds"
          sentences
          rule="Said while the agent works, e.g. One moment; none draws a warning"
          maxItems={50}
        />
        <Switch
          id={recording.id}
          label="Record calls"
          description="Sessions keep their turns' audio unless started with recording: false (default: off)"
          checked={recording.value === true}
          onChange={(e) => recording.set(e.currentTarget.checked ? true : undefined)}
          onBlur={recording.touch}
          error={recording.error}
          disabled={recording.disabled}
        />
      </Stack>
    </Fieldset>
  );
}

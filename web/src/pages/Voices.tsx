import {
  Badge,
  Button,
  Card,
  Group,
  NativeSelect,
  SimpleGrid,
  Stack,
  Text,
  Textarea,
  Title,
} from '@mantine/core';
import { useMutation, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { api, unwrap } from '../api/client';
import type { components } from '../api/schema';
import { Empty, ErrorAlert, PageHeader, PageLoader } from '../components/ui';

type Voice = components['schemas']['Voice'];
type Gender = Voice['gender'];

const options = (values: string[]) => [...new Set(values)].sort().map((value) => ({ value, label: value }));

/** Voices: filter the catalog, play a preview of any voice in the page. */
export default function VoicesPage() {
  const [gender, setGender] = useState<Gender | null>(null);
  const [category, setCategory] = useState<string | null>(null);
  const [language, setLanguage] = useState<string | null>(null);
  const all = useQuery({
    queryKey: ['voices'],
    queryFn: async () => unwrap(await api.GET('/api/v1/developers/voices')).voices,
    staleTime: 300_000,
  });
  const filtered = useQuery({
    queryKey: ['voices', gender, category, language],
    queryFn: async () =>
      unwrap(
        await api.GET('/api/v1/developers/voices', {
          params: {
            query: {
              gender: gender ?? undefined,
              category: category ?? undefined,
              language: language ?? undefined,
            },
          },
        }),
      ).voices,
    staleTime: 300_000,
  });

  return (
    <>
      <PageHeader
        title="Voices"
        description="Voices a persona can speak with (voice.provider and voice.voice_id)."
      />
      <Group mb="md" gap="sm" align="flex-end">
        <NativeSelect
          label="Gender"
          data={[{ value: '', label: 'Any' }, 'female', 'male', 'neutral']}
          value={gender ?? ''}
          onChange={(e) => setGender((e.currentTarget.value || null) as Gender | null)}
          w={160}
        />
        <NativeSelect
          label="Category"
          data={[{ value: '', label: 'Any' }, ...options(all.data?.map((v) => v.category) ?? [])]}
          value={category ?? ''}
          onChange={(e) => setCategory(e.currentTarget.value || null)}
          w={180}
        />
        <NativeSelect
          label="Language"
          data={[{ value: '', label: 'Any' }, ...options(all.data?.map((v) => v.language) ?? [])]}
          value={language ?? ''}
          onChange={(e) => setLanguage(e.currentTarget.value || null)}
          w={140}
        />
      </Group>
      <ErrorAlert error={filtered.error ?? all.error} />
      {filtered.isPending ? (
        <PageLoader />
      ) : filtered.data?.length === 0 ? (
        <Empty>No voice matches these filters.</Empty>
      ) : (
        <SimpleGrid cols={{ base: 1, sm: 2, lg: 3 }} spacing="md">
          {filtered.data?.map((voice) => (
            <VoiceCard key={voice.id} voice={voice} />
          ))}
        </SimpleGrid>
      )}
    </>
  );
}

function VoiceCard({ voice }: { voice: Voice }) {
  const [text, setText] = useState(voice.sampleText);
  const preview = useMutation({
    mutationFn: async () =>
      unwrap(await api.POST('/api/v1/developers/voices/preview', { body: { voice_id: voice.id, text } }))
        .preview,
  });
  return (
    <Card withBorder padding="md" data-testid={`voice-${voice.id}`} component="article">
      <Stack gap="xs">
        <Group justify="space-between" wrap="nowrap">
          <Title order={2} size="h4">
            {voice.name}
          </Title>
          <Text size="xs" ff="monospace">
            {voice.id}
          </Text>
        </Group>
        <Text size="sm">{voice.description}</Text>
        <Group gap={6}>
          <Badge variant="outline" color="gray.8">
            {voice.gender}
          </Badge>
          <Badge variant="outline" color="gray.8">
            {voice.category}
          </Badge>
          <Badge variant="outline" color="gray.8">
            {voice.language}
          </Badge>
          {voice.tags.map((tag) => (
            <Badge key={tag} variant="outline" color="indigo.9">
              {tag}
            </Badge>
          ))}
        </Group>
        <Textarea
          label={`Preview text for ${voice.name}`}
          value={text}
          onChange={(e) => setText(e.currentTarget.value)}
          autosize
          minRows={2}
          maxLength={500}
        />
        <Group gap="xs">
          <Button
            size="xs"
            onClick={() => preview.mutate()}
            loading={preview.isPending}
            disabled={!text.trim()}
          >
            Play preview
          </Button>
          {preview.data ? <Text size="xs">{preview.data.duration.toFixed(1)} s</Text> : null}
        </Group>
        <ErrorAlert error={preview.error} title="No preview" />
        {preview.data ? (
          // biome-ignore lint/a11y/useMediaCaption: the preview's words are shown beside it
          <audio
            controls
            autoPlay
            src={preview.data.audioUrl}
            aria-label={`Preview of ${voice.name}`}
            style={{ width: '100%' }}
          />
        ) : null}
        {preview.data ? <Text size="xs">“{preview.data.text}”</Text> : null}
      </Stack>
    </Card>
  );
}

import { Group, NativeSelect, SimpleGrid } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { api, unwrap } from '../api/client';
import type { components } from '../api/schema';
import { ListPage } from '../components/ListPage';
import { VoiceCard } from './voices/VoiceCard';
import { allVoicesQuery } from './voices/voicePreview';

type Voice = components['schemas']['Voice'];
type Gender = Voice['gender'];

const options = (values: string[]) => [...new Set(values)].sort().map((value) => ({ value, label: value }));

/** Voices: filter the catalog, play a preview of any voice in the page. */
export default function VoicesPage() {
  const [gender, setGender] = useState<Gender | null>(null);
  const [category, setCategory] = useState<string | null>(null);
  const [language, setLanguage] = useState<string | null>(null);
  const all = useQuery(allVoicesQuery);
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

  const filters = (
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
  );
  return (
    <ListPage
      title="Voices"
      description="Voices a persona can speak with (voice.provider and voice.voice_id)."
      toolbar={filters}
      items={filtered.data}
      pending={filtered.isPending}
      error={filtered.error ?? all.error}
      empty="No voice matches these filters."
    >
      {(voices) => (
        <SimpleGrid cols={{ base: 1, sm: 2, lg: 3 }} spacing="md">
          {voices.map((voice) => (
            <VoiceCard key={voice.id} voice={voice} />
          ))}
        </SimpleGrid>
      )}
    </ListPage>
  );
}

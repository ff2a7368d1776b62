import { Badge, Button, Card, Group, Stack, Text, Textarea, Title } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { api, unwrap } from '../../api/client';
import type { components } from '../../api/schema';
import { ErrorAlert } from '../../components/ui';

type Voice = components['schemas']['Voice'];

/** One voice of the catalog: what it is, and a preview of any text played in the page. */
export function VoiceCard({ voice }: { voice: Voice }) {
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

import { Badge, Button, Card, Group, Stack, Text, Textarea, Title } from '@mantine/core';
import { useState } from 'react';
import type { components } from '../../api/schema';
import { ErrorAlert } from '../../components/ui';
import { PreviewPlayer, useVoicePreview } from './voicePreview';

type Voice = components['schemas']['Voice'];

/** One voice of the catalog: what it is, and a preview of any text played in the page. */
export function VoiceCard({ voice }: { voice: Voice }) {
  const [text, setText] = useState(voice.sampleText);
  const preview = useVoicePreview();
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
            onClick={() => preview.mutate({ voiceId: voice.id, text })}
            loading={preview.isPending}
            disabled={!text.trim()}
          >
            Play preview
          </Button>
          {preview.data ? <Text size="xs">{preview.data.duration.toFixed(1)} s</Text> : null}
        </Group>
        <ErrorAlert error={preview.error} title="No preview" />
        {preview.data ? <PreviewPlayer preview={preview.data} voiceName={voice.name} /> : null}
      </Stack>
    </Card>
  );
}

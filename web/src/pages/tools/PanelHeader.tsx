import { Group, Stack, Text, Title } from '@mantine/core';
import type { ReactNode } from 'react';

/** A tab's heading (level 2, under the page's) with one line of explanation and its main action. */
export function PanelHeader(props: { title: string; description: ReactNode; action?: ReactNode }) {
  return (
    <Group justify="space-between" align="flex-start" mb="md" gap="sm">
      <Stack gap={4} style={{ minWidth: 0, flex: '1 1 240px' }}>
        <Title order={2} size="h3">
          {props.title}
        </Title>
        <Text c="dimmed" size="sm">
          {props.description}
        </Text>
      </Stack>
      {props.action ? <Group gap="xs">{props.action}</Group> : null}
    </Group>
  );
}

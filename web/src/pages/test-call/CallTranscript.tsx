import { Badge, Code, Group, Paper, Stack, Text } from '@mantine/core';
import { useEffect, useRef } from 'react';
import { StatusBadge } from '../../components/ui';
import type { TranscriptEntry } from '../../voice/call-transcript';

type Entry<K extends TranscriptEntry['kind']> = Extract<TranscriptEntry, { kind: K }>;

const turns = (n: number) => `${n} turn${n === 1 ? '' : 's'}`;

function AgentLine({ entry }: { entry: Entry<'agent'> }) {
  return (
    <Paper withBorder p="xs" data-testid="call-agent" data-turn={entry.turnId}>
      <Group gap="xs" mb={2}>
        <Text size="xs" fw={700}>
          Agent{entry.turnId === 'greeting' ? ' (greeting)' : ''}
        </Text>
        {entry.done ? null : (
          <Text size="xs" c="dimmed">
            speaking…
          </Text>
        )}
        {entry.interrupted ? (
          <Badge size="xs" variant="outline" color="red.9" data-testid="call-interrupted">
            interrupted
          </Badge>
        ) : null}
        {entry.recordedAs !== undefined ? <Text size="xs">recorded as turn {entry.recordedAs}</Text> : null}
      </Group>
      <Text size="sm">{entry.text}</Text>
      {entry.interrupted ? (
        <Text size="xs" c="dimmed">
          Heard before the interruption: {entry.interrupted.spokenText || '(nothing)'}
        </Text>
      ) : null}
    </Paper>
  );
}

function ToolLine({ entry }: { entry: Entry<'tool'> }) {
  const status = entry.result ? (entry.result.success ? 'completed' : 'failed') : 'running';
  return (
    <Text size="sm" data-testid="call-tool">
      Tool <Code>{entry.name}</Code> <StatusBadge status={status} />
      {entry.arguments ? (
        <>
          {' '}
          <Code>{entry.arguments}</Code>
        </>
      ) : null}
      {entry.result ? ` · ${Math.round(entry.result.durationMs)} ms` : ''}
      {entry.result?.error ? ` · ${entry.result.error}` : ''}
    </Text>
  );
}

function EntryLine({ entry }: { entry: TranscriptEntry }) {
  switch (entry.kind) {
    case 'caller':
      return (
        <Paper withBorder p="xs" bg="var(--mantine-color-gray-0)" ml="xl" data-testid="call-caller">
          <Text size="xs" fw={700}>
            You{entry.typed ? ' (typed)' : ''}
          </Text>
          <Text size="sm">{entry.text}</Text>
        </Paper>
      );
    case 'agent':
      return <AgentLine entry={entry} />;
    case 'tool':
      return <ToolLine entry={entry} />;
    case 'workflow':
      return (
        <Text size="sm" data-testid="call-workflow">
          Workflow {entry.workflowName} <StatusBadge status={entry.status} />
          {entry.speech.length ? ` · says “${entry.speech.join(' ')}”` : ''}
        </Text>
      );
    case 'error':
      return (
        <Text size="sm" c="red.9" data-testid="call-error">
          {entry.code}: {entry.message}
        </Text>
      );
    case 'ended':
      return (
        <Text size="sm" fw={700} data-testid="call-ended">
          {entry.reason === 'disconnected'
            ? 'The call was disconnected.'
            : `Call ended (${entry.reason.replace('_', ' ')}, ${turns(entry.turnCount ?? 0)}).`}
        </Text>
      );
  }
}

/** A test call's transcript as it happens: caller and agent lines, tool and workflow actions, errors. */
export function CallTranscript({ entries }: { entries: TranscriptEntry[] }) {
  const box = useRef<HTMLDivElement>(null);
  // keep the newest line in view while the call goes on
  // biome-ignore lint/correctness/useExhaustiveDependencies: scrolls whenever a line is added or grows
  useEffect(() => {
    if (box.current) box.current.scrollTop = box.current.scrollHeight;
  }, [entries]);
  return (
    <div
      ref={box}
      role="log"
      aria-label="Call transcript"
      // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must be reachable by keyboard (WCAG 2.1.1)
      tabIndex={0}
      style={{ maxHeight: 360, overflowY: 'auto' }}
    >
      <Stack component="ol" gap="xs" style={{ listStyle: 'none', padding: 0, margin: 0 }}>
        {entries.map((entry) => (
          <li key={entry.key}>
            <EntryLine entry={entry} />
          </li>
        ))}
      </Stack>
    </div>
  );
}

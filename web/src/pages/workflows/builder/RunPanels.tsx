import { Alert, Anchor, Button, Group, Stack, Text, Textarea, TextInput } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router';
import { api, errorText, unwrap } from '../../../api/client';
import type { components } from '../../../api/schema';
import { StatusBadge } from '../../../components/ui';

type Execution = components['schemas']['WorkflowExecution'];

const SAVED_ONLY = 'Runs the saved version: save your changes first to run them.';

/** A real run's outcome: its status, what it said, and a link to it. */
function RunOutcome({ workflowId, run, extra }: { workflowId: string; run: Execution; extra?: string }) {
  return (
    <Alert color={run.status === 'failed' ? 'red' : 'green'} title="Run" data-testid="run-result">
      <Group gap="xs">
        <StatusBadge status={run.status} />
        <Anchor component={Link} to={`/workflows/${workflowId}?execution=${run.id}`} size="sm">
          {run.id}
        </Anchor>
      </Group>
      {extra ? <Text size="sm">{extra}</Text> : null}
      {(run.output?.speech ?? []).map((line, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: the speech is in order and never reordered
        <Text size="sm" key={i}>
          Says: “{line}”
        </Text>
      ))}
      {run.error ? (
        <Text size="sm">
          Failed at {run.error.nodeId}: {run.error.message}
        </Text>
      ) : null}
    </Alert>
  );
}

/**
 * "Say a phrase": the utterance goes to `POST /workflows/trigger` as a caller's words would, and runs
 * whichever voice command matches best (this one or another of the environment), for real.
 */
export function PhrasePanel({ workflowId, dirty }: { workflowId: string; dirty: boolean }) {
  const queryClient = useQueryClient();
  const [utterance, setUtterance] = useState('');
  const trigger = useMutation({
    mutationFn: async () =>
      unwrap(
        await api.POST('/api/v2/developers/workflows/trigger', {
          body: { utterance, wait: true, timeoutMs: 30_000 },
        }),
      ).data,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['workflow'] }),
  });
  const run = trigger.data;
  return (
    <Stack gap="sm">
      <TextInput
        label="Say a phrase"
        description={`What a caller might say. The best-matching voice command of this environment runs, for real. ${dirty ? SAVED_ONLY : ''}`}
        value={utterance}
        maxLength={1000}
        onChange={(e) => setUtterance(e.currentTarget.value)}
      />
      <Group>
        <Button onClick={() => trigger.mutate()} disabled={!utterance.trim()} loading={trigger.isPending}>
          Say it
        </Button>
      </Group>
      {trigger.error ? (
        <Alert color="red" title="No run">
          {errorText(trigger.error)}
        </Alert>
      ) : null}
      {run ? (
        <RunOutcome
          workflowId={run.workflowId}
          run={run}
          extra={`Matched “${run.match.workflowName}”${run.workflowId === workflowId ? ' (this workflow)' : ' (another workflow)'} on “${run.match.command}”, score ${run.match.score.toFixed(2)}`}
        />
      ) : null}
    </Stack>
  );
}

/** Execute: the saved version runs with this input (`POST /workflows/:id/execute`), for real. */
export function ExecutePanel({ workflowId, dirty }: { workflowId: string; dirty: boolean }) {
  const queryClient = useQueryClient();
  const [input, setInput] = useState('{}');
  const execute = useMutation({
    mutationFn: async () => {
      let parsed: unknown;
      try {
        parsed = JSON.parse(input || '{}');
      } catch (e) {
        throw new Error(`Input: ${(e as Error).message}`);
      }
      if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
        throw new Error('Input: must be a JSON object');
      return unwrap(
        await api.POST('/api/v2/developers/workflows/{id}/execute', {
          params: { path: { id: workflowId } },
          body: { input: parsed as Record<string, unknown>, wait: true, timeoutMs: 30_000 },
        }),
      ).data;
    },
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['workflow'] }),
  });
  return (
    <Stack gap="sm">
      <Textarea
        label="Input (JSON)"
        description={`The run's input. ${dirty ? SAVED_ONLY : 'Tools are called for real.'}`}
        ff="monospace"
        autosize
        minRows={2}
        value={input}
        onChange={(e) => setInput(e.currentTarget.value)}
      />
      <Group>
        <Button onClick={() => execute.mutate()} loading={execute.isPending}>
          Execute
        </Button>
      </Group>
      {execute.error ? (
        <Alert color="red" title="No run">
          {errorText(execute.error)}
        </Alert>
      ) : null}
      {execute.data ? <RunOutcome workflowId={workflowId} run={execute.data} /> : null}
    </Stack>
  );
}

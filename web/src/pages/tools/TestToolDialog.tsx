import { Alert, Button, Group, JsonInput, Modal, Stack, Text } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { type FormEvent, useEffect, useState } from 'react';
import { api, unwrap } from '../../api/client';
import type { components } from '../../api/schema';
import { ErrorAlert } from '../../components/ui';
import { JsonBlock } from './McpToolList';
import { sampleArguments } from './parameters';

type Tool = components['schemas']['Tool'];
type Execution = components['schemas']['ToolExecution'];

/** "Test with arguments": runs the tool for real (POST /tools/:id/test) and shows its result or error. */
export function TestToolDialog(props: { tool: Tool | null; onClose(): void }) {
  const { tool } = props;
  const [args, setArgs] = useState('{}');
  const run = useMutation({
    mutationFn: async () => {
      const parsed = JSON.parse(args) as unknown;
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
        throw new Error('The arguments must be a JSON object');
      }
      // formatted once the run has started, not on blur: formatting can grow the box, and on blur
      // it moved the Run button between a click's press and release, so the click was lost
      setArgs(JSON.stringify(parsed, null, 2));
      return unwrap(
        await api.POST('/api/v2/developers/tools/{id}/test', {
          params: { path: { id: tool?.id ?? '' } },
          body: { arguments: parsed as Record<string, unknown> },
        }),
      ).data;
    },
  });
  // each opening starts from example arguments of the tool's parameters
  // biome-ignore lint/correctness/useExhaustiveDependencies: only when another tool is opened
  useEffect(() => {
    if (!tool) return;
    setArgs(JSON.stringify(sampleArguments(tool.parameters), null, 2));
    run.reset();
  }, [tool?.id]);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    run.mutate();
  };
  return (
    <Modal
      opened={tool !== null}
      onClose={props.onClose}
      title={`Test ${tool?.name ?? 'the tool'}`}
      size="lg"
    >
      <form onSubmit={submit}>
        <Stack>
          <Text size="sm">This really runs the tool and emits its tool events.</Text>
          <JsonInput
            label="Arguments (JSON)"
            autosize
            minRows={3}
            validationError="Not valid JSON"
            value={args}
            onChange={setArgs}
          />
          <ErrorAlert error={run.error} title="The tool did not run" />
          {run.data ? <ExecutionResult execution={run.data} /> : null}
          <Group justify="flex-end">
            <Button variant="default" onClick={props.onClose}>
              Close
            </Button>
            <Button type="submit" loading={run.isPending}>
              Run test
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}

/** A test run's outcome: succeeded or failed, HTTP status (webhook tools), time, then the result or error. */
function ExecutionResult({ execution }: { execution: Execution }) {
  const status = execution.statusCode !== undefined ? `HTTP ${execution.statusCode} · ` : '';
  return (
    <Alert
      color={execution.success ? 'green' : 'red'}
      role="status"
      title={execution.success ? 'Succeeded' : 'Failed'}
      data-testid="tool-test-result"
    >
      <Text size="sm" mb="xs">
        {status}
        {execution.durationMs} ms
      </Text>
      {execution.error ? <Text size="sm">{execution.error}</Text> : null}
      {execution.result !== undefined ? <JsonBlock value={execution.result} label="Result" /> : null}
    </Alert>
  );
}

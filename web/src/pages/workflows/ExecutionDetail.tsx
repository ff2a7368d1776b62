import { Anchor, Code, Group, Stack, Text, Title } from '@mantine/core';
import type { components } from '../../api/schema';
import { type Column, DataTable } from '../../components/DataTable';
import { StatusBadge } from '../../components/ui';

type Execution = components['schemas']['WorkflowExecution'];
type Step = components['schemas']['WorkflowStep'];

const json = (value: unknown) => (value === undefined ? '' : JSON.stringify(value, null, 2));

const STEP_COLUMNS: Column<Step>[] = [
  {
    header: 'Node',
    cell: (step) => (
      <>
        <Code>{step.nodeId}</Code> ({step.type})
      </>
    ),
  },
  { header: 'Status', cell: (step) => <StatusBadge status={step.status} /> },
  { header: 'Duration', cell: (step) => (step.durationMs !== null ? `${step.durationMs} ms` : '—') },
  {
    header: 'Result',
    cell: (step) => (
      <Code block style={{ maxHeight: 160, overflow: 'auto' }}>
        {step.error ? `error: ${step.error}` : json(step.result)}
      </Code>
    ),
  },
];

/** One execution: where it failed, each node's status and result (the node picked in the graph highlighted), what it said. */
export function ExecutionDetail(props: {
  execution: Execution;
  temporalUrl: string | null;
  focusNode: string | null;
}) {
  const { execution, temporalUrl, focusNode } = props;
  return (
    <Stack gap="sm" data-testid="execution">
      <Group justify="space-between">
        <Title order={3} size="h4">
          Execution <Code>{execution.id}</Code>
        </Title>
        {temporalUrl ? (
          <Anchor href={temporalUrl} target="_blank" rel="noopener" data-testid="temporal-link">
            Open in the Temporal Web UI
          </Anchor>
        ) : null}
      </Group>
      {execution.error ? (
        <Text c="red.9" size="sm">
          Failed at <Code>{execution.error.nodeId}</Code>: {execution.error.message}
        </Text>
      ) : null}
      <DataTable
        label="Node results"
        minWidth={640}
        withTableBorder
        rows={execution.steps}
        columns={STEP_COLUMNS}
        rowKey={(step) => step.nodeId}
        rowProps={(step) => ({
          bg: step.nodeId === focusNode ? 'var(--mantine-color-yellow-0)' : undefined,
          'data-testid': `step-${step.nodeId}`,
        })}
      />
      {execution.output?.speech.length ? (
        <Text size="sm">Spoken: {execution.output.speech.map((s) => `“${s}”`).join(' ')}</Text>
      ) : null}
    </Stack>
  );
}

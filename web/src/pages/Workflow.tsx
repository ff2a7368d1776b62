import { Anchor, Code, Group, Paper, Stack, Table, Text, Title, UnstyledButton } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useParams, useSearchParams } from 'react-router';
import { api, environmentStore, unwrap } from '../api/client';
import {
  Empty,
  ErrorAlert,
  formatTime,
  PageHeader,
  PageLoader,
  ScrollTable,
  StatusBadge,
} from '../components/ui';
import { WorkflowGraph } from '../components/WorkflowGraph';
import { loadConsoleConfig, temporalExecutionUrl } from '../config';
import { useStoredValue } from '../store';

const json = (value: unknown) => (value === undefined ? '' : JSON.stringify(value, null, 2));

/**
 * One workflow: its graph (nodes and edges laid out by dagre), its executions, and for the selected
 * execution each node's status and result, with a link to the execution in the Temporal Web UI.
 */
export default function WorkflowPage() {
  const { id = '' } = useParams();
  const environment = useStoredValue(environmentStore);
  const [params, setParams] = useSearchParams();
  const selected = params.get('execution');
  const config = useQuery({ queryKey: ['console-config'], queryFn: loadConsoleConfig, staleTime: Infinity });

  const workflow = useQuery({
    queryKey: ['workflow', environment, id],
    queryFn: async () =>
      unwrap(await api.GET('/api/v2/developers/workflows/{id}', { params: { path: { id } } })).data,
  });
  const executions = useQuery({
    queryKey: ['workflow', environment, id, 'executions'],
    queryFn: async () =>
      unwrap(
        await api.GET('/api/v2/developers/workflows/{id}/executions', {
          params: { path: { id }, query: { limit: 50 } },
        }),
      ).data,
    refetchInterval: (query) => (query.state.data?.some((e) => e.status === 'running') ? 2000 : false),
  });
  const execution = executions.data?.find((e) => e.id === selected) ?? null;
  const [focus, setFocus] = useState<{ execution: string | null; node: string } | null>(null);
  // a node picked in the graph highlights its row in the selected execution only
  const focusNode = focus && focus.execution === selected ? focus.node : null;
  const setFocusNode = (node: string) => setFocus({ execution: selected, node });

  if (workflow.isPending) return <PageLoader />;
  if (!workflow.data) return <ErrorAlert error={workflow.error} title="The workflow did not load" />;
  const w = workflow.data;
  const temporalUrl = execution && config.data ? temporalExecutionUrl(config.data, execution.id) : null;

  return (
    <>
      <Anchor component={Link} to="/workflows" size="sm">
        ← Workflows
      </Anchor>
      <PageHeader
        title={w.name}
        description={
          <>
            {w.description ? `${w.description} · ` : ''}
            {w.trigger.type === 'voice_command'
              ? `says “${String(w.trigger.config.command ?? '')}”`
              : w.trigger.type}{' '}
            · version {w.version} · {w.nodes.length} nodes, {w.edges.length} edges
          </>
        }
      />
      <Stack gap="md">
        <Paper withBorder>
          <WorkflowGraph
            nodes={w.nodes}
            edges={w.edges}
            steps={execution?.steps}
            currentNodes={execution?.currentNodes}
            onSelect={setFocusNode}
          />
        </Paper>
        <details>
          <summary>Nodes and edges as text</summary>
          <Text size="sm" component="div">
            <ul>
              {w.nodes.map((n) => (
                <li key={n.id}>
                  <Code>{n.id}</Code> ({n.type}) →{' '}
                  {w.edges
                    .filter((e) => e.sourceId === n.id)
                    .map((e) => `${e.targetId}${e.condition !== undefined ? ` [${e.condition}]` : ''}`)
                    .join(', ') || 'nothing'}
                </li>
              ))}
            </ul>
          </Text>
        </details>

        <Title order={2} size="h3">
          Executions
        </Title>
        <ErrorAlert error={executions.error} />
        {executions.isPending ? (
          <PageLoader />
        ) : executions.data?.length === 0 ? (
          <Empty>No executions yet.</Empty>
        ) : (
          <ScrollTable minWidth={600}>
            <Table highlightOnHover aria-label="Executions">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Execution</Table.Th>
                  <Table.Th>Status</Table.Th>
                  <Table.Th>Started</Table.Th>
                  <Table.Th>Duration</Table.Th>
                  <Table.Th>Session</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {executions.data?.map((e) => (
                  <Table.Tr key={e.id} bg={e.id === selected ? 'var(--mantine-color-indigo-0)' : undefined}>
                    <Table.Td>
                      <UnstyledButton
                        onClick={() =>
                          setParams(e.id === selected ? {} : { execution: e.id }, { replace: true })
                        }
                        aria-pressed={e.id === selected}
                        style={{
                          textDecoration: 'underline',
                          color: 'var(--mantine-color-anchor)',
                          fontFamily: 'monospace',
                        }}
                      >
                        {e.id}
                      </UnstyledButton>
                    </Table.Td>
                    <Table.Td>
                      <StatusBadge status={e.status} />
                    </Table.Td>
                    <Table.Td>{formatTime(e.startedAt)}</Table.Td>
                    <Table.Td>{e.durationMs !== null ? `${e.durationMs} ms` : '—'}</Table.Td>
                    <Table.Td>
                      {e.sessionId ? (
                        <Anchor component={Link} to={`/sessions/${e.sessionId}`}>
                          {e.sessionId}
                        </Anchor>
                      ) : (
                        '—'
                      )}
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </ScrollTable>
        )}

        {execution ? (
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
            <ScrollTable minWidth={640}>
              <Table withTableBorder aria-label="Node results">
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th>Node</Table.Th>
                    <Table.Th>Status</Table.Th>
                    <Table.Th>Duration</Table.Th>
                    <Table.Th>Result</Table.Th>
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {execution.steps.map((step) => (
                    <Table.Tr
                      key={step.nodeId}
                      bg={step.nodeId === focusNode ? 'var(--mantine-color-yellow-0)' : undefined}
                      data-testid={`step-${step.nodeId}`}
                    >
                      <Table.Td>
                        <Code>{step.nodeId}</Code> ({step.type})
                      </Table.Td>
                      <Table.Td>
                        <StatusBadge status={step.status} />
                      </Table.Td>
                      <Table.Td>{step.durationMs !== null ? `${step.durationMs} ms` : '—'}</Table.Td>
                      <Table.Td>
                        <Code block style={{ maxHeight: 160, overflow: 'auto' }}>
                          {step.error ? `error: ${step.error}` : json(step.result)}
                        </Code>
                      </Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            </ScrollTable>
            {execution.output?.speech.length ? (
              <Text size="sm">Spoken: {execution.output.speech.map((s) => `“${s}”`).join(' ')}</Text>
            ) : null}
          </Stack>
        ) : executions.data?.length ? (
          <Text size="sm">Choose an execution to see each node's result.</Text>
        ) : null}
      </Stack>
    </>
  );
}

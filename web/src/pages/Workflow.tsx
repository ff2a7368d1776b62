import { Anchor, Button, Paper, Stack, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useParams, useSearchParams } from 'react-router';
import { api, environmentStore, unwrap } from '../api/client';
import { backoffPolling } from '../api/polling';
import type { components } from '../api/schema';
import { ErrorAlert, PageHeader, PageLoader } from '../components/ui';
import { WorkflowGraph } from '../components/WorkflowGraph';
import { loadConsoleConfig, temporalExecutionUrl } from '../config';
import { useStoredValue } from '../store';
import { ExecutionDetail } from './workflows/ExecutionDetail';
import { ExecutionList } from './workflows/ExecutionList';
import { GraphAsText } from './workflows/GraphAsText';

type Workflow = components['schemas']['Workflow'];

/** A workflow and its newest 50 executions, followed while any is running. */
function useWorkflow(id: string) {
  const environment = useStoredValue(environmentStore);
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
    refetchInterval: backoffPolling((list) => Boolean(list?.some((e) => e.status === 'running'))),
  });
  return { workflow, executions };
}

/** The workflow in one line: its description, trigger, version and size. */
function summary(w: Workflow): string {
  const trigger =
    w.trigger.type === 'voice_command' ? `says “${String(w.trigger.config.command ?? '')}”` : w.trigger.type;
  const description = w.description ? `${w.description} · ` : '';
  return `${description}${trigger} · version ${w.version} · ${w.nodes.length} nodes, ${w.edges.length} edges`;
}

/**
 * One workflow: its graph (nodes and edges laid out by dagre), its executions, and for the selected
 * execution each node's status and result, with a link to the execution in the Temporal Web UI.
 */
export default function WorkflowPage() {
  const { id = '' } = useParams();
  const [params, setParams] = useSearchParams();
  const selected = params.get('execution');
  const config = useQuery({ queryKey: ['console-config'], queryFn: loadConsoleConfig, staleTime: Infinity });
  const { workflow, executions } = useWorkflow(id);
  const execution = executions.data?.find((e) => e.id === selected) ?? null;
  const [focus, setFocus] = useState<{ execution: string | null; node: string } | null>(null);
  // a node picked in the graph highlights its row in the selected execution only
  const focusNode = focus && focus.execution === selected ? focus.node : null;

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
        description={summary(w)}
        actions={
          <Button component={Link} to={`/workflows/${w.id}/edit`} size="xs">
            Edit in the builder
          </Button>
        }
      />
      <Stack gap="md">
        <Paper withBorder>
          <WorkflowGraph
            nodes={w.nodes}
            edges={w.edges}
            steps={execution?.steps}
            currentNodes={execution?.currentNodes}
            onSelect={(node) => setFocus({ execution: selected, node })}
          />
        </Paper>
        <GraphAsText workflow={w} />
        <Title order={2} size="h3">
          Executions
        </Title>
        <ExecutionList
          executions={executions.data}
          pending={executions.isPending}
          error={executions.error}
          selected={selected}
          onSelect={(e) => setParams(e === selected ? {} : { execution: e }, { replace: true })}
        />
        {execution ? (
          <ExecutionDetail execution={execution} temporalUrl={temporalUrl} focusNode={focusNode} />
        ) : executions.data?.length ? (
          <Text size="sm">Choose an execution to see each node's result.</Text>
        ) : null}
      </Stack>
    </>
  );
}

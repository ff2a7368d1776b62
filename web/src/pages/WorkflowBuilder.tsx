import {
  Alert,
  Anchor,
  Button,
  Grid,
  Group,
  NativeSelect,
  Paper,
  Stack,
  Tabs,
  Text,
  TextInput,
} from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useBeforeUnload, useParams } from 'react-router';
import { api, environmentStore, errorText, unwrap } from '../api/client';
import { ErrorBoundary } from '../components/ErrorBoundary';
import { ErrorAlert, PageHeader, PageLoader } from '../components/ui';
import { useStoredValue } from '../store';
import { BuilderCanvas } from './workflows/builder/BuilderCanvas';
import { DryRunPanel } from './workflows/builder/DryRunPanel';
import { ADDABLE_TYPES, type Draft, draftOf, emptyDraft, TYPE_LABELS } from './workflows/builder/draft';
import { NodePanel } from './workflows/builder/NodePanel';
import { ExecutePanel, PhrasePanel } from './workflows/builder/RunPanels';
import { useBuilder } from './workflows/builder/useBuilder';
import { VersionsPanel } from './workflows/builder/VersionsPanel';

/** Name, description and trigger of the draft. */
function DefinitionFields({ draft, edit }: { draft: Draft; edit(patch: Partial<Draft>): void }) {
  return (
    <Group align="flex-end" gap="sm" wrap="wrap" mb="sm">
      <TextInput
        label="Name"
        required
        maxLength={100}
        value={draft.name}
        onChange={(e) => edit({ name: e.currentTarget.value })}
      />
      <TextInput
        label="Description"
        maxLength={2000}
        value={draft.description}
        onChange={(e) => edit({ description: e.currentTarget.value })}
      />
      <NativeSelect
        label="Trigger"
        value={draft.trigger.type}
        onChange={(e) =>
          edit({ trigger: { ...draft.trigger, type: e.currentTarget.value as 'voice_command' | 'manual' } })
        }
        data={[
          { value: 'voice_command', label: 'Voice command' },
          { value: 'manual', label: 'Manual (run by id)' },
        ]}
      />
      {draft.trigger.type === 'voice_command' ? (
        <TextInput
          label="Command"
          description="What a caller says to run it"
          required
          maxLength={500}
          value={draft.trigger.command}
          onChange={(e) => edit({ trigger: { ...draft.trigger, command: e.currentTarget.value } })}
        />
      ) : null}
    </Group>
  );
}

const KEPT = 'Your unsaved graph is kept: save it, or try again.';

function BuilderBody({
  workflowId,
  initial,
  version,
}: {
  workflowId: string | null;
  initial: Draft;
  version: number | null;
}) {
  const b = useBuilder(workflowId, initial);
  const [opened, setOpened] = useState<number | null>(null);
  useBeforeUnload((e) => {
    if (b.dirty) e.preventDefault();
  });
  const saved = b.save.data?.version ?? version;
  return (
    <>
      <PageHeader
        title={workflowId ? `Edit ${initial.name}` : 'New workflow'}
        description={
          workflowId
            ? `Version ${saved}${b.dirty ? ' · unsaved changes' : ' · saved'}${opened ? ` · opened from version ${opened}` : ''}`
            : 'Build the graph, then save it to dry-run, trigger and execute it.'
        }
        actions={
          <>
            {workflowId ? (
              <Anchor component={Link} to={`/workflows/${workflowId}`}>
                Executions
              </Anchor>
            ) : null}
            <Button
              onClick={() => b.save.mutate()}
              loading={b.save.isPending}
              disabled={!b.dirty && Boolean(workflowId)}
            >
              {workflowId ? 'Save as a new version' : 'Create workflow'}
            </Button>
          </>
        }
      />
      {b.save.error ? (
        <Alert color="red" title="Not saved" mb="sm" role="alert">
          {b.problems.length
            ? 'The API found problems; they are shown on the nodes they concern.'
            : errorText(b.save.error)}
        </Alert>
      ) : null}
      {b.placed.general.length ? (
        <Alert color="red" title="Problems" mb="sm" data-testid="general-problems">
          {b.placed.general.map((p) => (
            <Text size="sm" key={p}>
              {p}
            </Text>
          ))}
        </Alert>
      ) : null}
      <DefinitionFields draft={b.draft} edit={b.edit} />
      <Grid gap="md">
        <Grid.Col span={{ base: 12, md: 8 }}>
          <Group gap={6} mb={6} role="toolbar" aria-label="Add a node">
            {ADDABLE_TYPES.map((type) => (
              <Button key={type} size="xs" variant="default" onClick={() => b.add(type)}>
                + {TYPE_LABELS[type]}
              </Button>
            ))}
          </Group>
          <Paper withBorder>
            <ErrorBoundary what="The graph" kept={KEPT}>
              <BuilderCanvas
                draft={b.draft}
                positions={b.positions}
                marks={b.marks}
                selected={b.selected}
                onSelect={b.setSelected}
                onMove={b.move}
                onConnect={b.connect}
                onDisconnect={b.disconnect}
              />
            </ErrorBoundary>
          </Paper>
        </Grid.Col>
        <Grid.Col span={{ base: 12, md: 4 }}>
          {/* a node's form that fails leaves the graph and its draft as they are */}
          <ErrorBoundary resetKey={b.selected ?? ''} what="The node's settings" kept={KEPT}>
            <NodePanel
              draft={b.draft}
              nodeId={b.selected}
              problems={(b.selected && b.placed.byNode.get(b.selected)) || []}
              onConfig={b.configure}
              onConnect={b.connect}
              onDisconnect={b.disconnect}
              onRemove={b.remove}
            />
          </ErrorBoundary>
        </Grid.Col>
      </Grid>
      {workflowId ? (
        <ErrorBoundary what="The run panels" kept={KEPT}>
          <Tabs defaultValue="dry-run" mt="md" keepMounted={false}>
            <Tabs.List>
              <Tabs.Tab value="dry-run">Dry run</Tabs.Tab>
              <Tabs.Tab value="phrase">Say a phrase</Tabs.Tab>
              <Tabs.Tab value="execute">Execute</Tabs.Tab>
              <Tabs.Tab value="versions">Versions</Tabs.Tab>
            </Tabs.List>
            <Stack pt="sm">
              <Tabs.Panel value="dry-run">
                <DryRunPanel builder={b} workflowId={workflowId} />
              </Tabs.Panel>
              <Tabs.Panel value="phrase">
                <PhrasePanel workflowId={workflowId} dirty={b.dirty} />
              </Tabs.Panel>
              <Tabs.Panel value="execute">
                <ExecutePanel workflowId={workflowId} dirty={b.dirty} />
              </Tabs.Panel>
              <Tabs.Panel value="versions">
                <VersionsPanel
                  workflowId={workflowId}
                  current={saved}
                  onOpen={(d, v) => {
                    b.load(d);
                    setOpened(v);
                  }}
                />
              </Tabs.Panel>
            </Stack>
          </Tabs>
        </ErrorBoundary>
      ) : null}
    </>
  );
}

/** The workflow builder: a new workflow (`/workflows/new`) or a saved one (`/workflows/:id/edit`). */
export default function WorkflowBuilderPage() {
  const { id } = useParams();
  const environment = useStoredValue(environmentStore);
  const workflow = useQuery({
    queryKey: ['workflow', environment, id],
    enabled: Boolean(id),
    queryFn: async () =>
      unwrap(await api.GET('/api/v2/developers/workflows/{id}', { params: { path: { id: id ?? '' } } })).data,
    // the builder holds its own draft: what the server has is read once
    staleTime: Infinity,
  });
  const back = (
    <Anchor component={Link} to={id ? `/workflows/${id}` : '/workflows'} size="sm">
      ← {id ? 'Workflow' : 'Workflows'}
    </Anchor>
  );
  if (!id) {
    return (
      <>
        {back}
        <BuilderBody workflowId={null} initial={emptyDraft()} version={null} />
      </>
    );
  }
  if (workflow.isPending) return <PageLoader />;
  if (!workflow.data) return <ErrorAlert error={workflow.error} title="The workflow did not load" />;
  return (
    <>
      {back}
      <BuilderBody
        key={id}
        workflowId={id}
        initial={draftOf(workflow.data)}
        version={workflow.data.version}
      />
    </>
  );
}

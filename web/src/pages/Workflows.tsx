import { Anchor, Button } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { api, environmentStore, unwrap } from '../api/client';
import type { components } from '../api/schema';
import { type Column, DataTable } from '../components/DataTable';
import { ListPage } from '../components/ListPage';
import { formatTime } from '../components/ui';
import { useStoredValue } from '../store';

type Workflow = components['schemas']['Workflow'];

const COLUMNS: Column<Workflow>[] = [
  {
    header: 'Name',
    cell: (w) => (
      <Anchor component={Link} to={`/workflows/${w.id}`}>
        {w.name}
      </Anchor>
    ),
  },
  {
    header: 'Trigger',
    cell: (w) =>
      w.trigger.type === 'voice_command' ? `“${String(w.trigger.config.command ?? '')}”` : w.trigger.type,
  },
  { header: 'Nodes', cell: (w) => w.nodes.length },
  { header: 'Version', cell: (w) => w.version },
  { header: 'Updated', cell: (w) => formatTime(w.updatedAt) },
];

/** Voice workflows of the selected environment. */
export default function WorkflowsPage() {
  const environment = useStoredValue(environmentStore);
  const workflows = useQuery({
    queryKey: ['workflows', environment],
    queryFn: async () =>
      unwrap(await api.GET('/api/v2/developers/workflows', { params: { query: { limit: 200 } } })).data,
  });
  return (
    <ListPage
      title="Workflows"
      description={`Voice-triggered workflows (${environment} environment): build them, try them, and follow their executions.`}
      actions={
        <Button component={Link} to="/workflows/new" size="xs">
          New workflow
        </Button>
      }
      items={workflows.data}
      pending={workflows.isPending}
      error={workflows.error}
      empty={<>No workflows in the {environment} environment yet: build one with New workflow.</>}
    >
      {(rows) => (
        <DataTable
          label="Workflows"
          minWidth={600}
          striped
          highlightOnHover
          rows={rows}
          columns={COLUMNS}
          rowKey={(w) => w.id}
        />
      )}
    </ListPage>
  );
}

import { Anchor, Table } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { api, environmentStore, unwrap } from '../api/client';
import { Empty, ErrorAlert, formatTime, PageHeader, PageLoader, ScrollTable } from '../components/ui';
import { useStoredValue } from '../store';

/** Voice workflows of the selected environment. */
export default function WorkflowsPage() {
  const environment = useStoredValue(environmentStore);
  const workflows = useQuery({
    queryKey: ['workflows', environment],
    queryFn: async () =>
      unwrap(await api.GET('/api/v2/developers/workflows', { params: { query: { limit: 200 } } })).data,
  });
  return (
    <>
      <PageHeader
        title="Workflows"
        description={`Voice-triggered workflows (${environment} environment): their graphs and executions.`}
      />
      <ErrorAlert error={workflows.error} />
      {workflows.isPending ? (
        <PageLoader />
      ) : workflows.data?.length === 0 ? (
        <Empty>No workflows in the {environment} environment. Create them through the platform API.</Empty>
      ) : (
        <ScrollTable minWidth={600}>
          <Table striped highlightOnHover aria-label="Workflows">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Name</Table.Th>
                <Table.Th>Trigger</Table.Th>
                <Table.Th>Nodes</Table.Th>
                <Table.Th>Version</Table.Th>
                <Table.Th>Updated</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {workflows.data?.map((w) => (
                <Table.Tr key={w.id}>
                  <Table.Td>
                    <Anchor component={Link} to={`/workflows/${w.id}`}>
                      {w.name}
                    </Anchor>
                  </Table.Td>
                  <Table.Td>
                    {w.trigger.type === 'voice_command'
                      ? `“${String(w.trigger.config.command ?? '')}”`
                      : w.trigger.type}
                  </Table.Td>
                  <Table.Td>{w.nodes.length}</Table.Td>
                  <Table.Td>{w.version}</Table.Td>
                  <Table.Td>{formatTime(w.updatedAt)}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </ScrollTable>
      )}
    </>
  );
}

import { Anchor, Group, SegmentedControl, Table } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router';
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
import { useStoredValue } from '../store';

/** Voice sessions of the selected environment, newest first. */
export default function SessionsPage() {
  const environment = useStoredValue(environmentStore);
  const [status, setStatus] = useState<'all' | 'active' | 'ended'>('all');
  const sessions = useQuery({
    queryKey: ['sessions', environment, status],
    queryFn: async () =>
      unwrap(
        await api.GET('/api/v2/developers/sessions', {
          params: { query: { limit: 100, status: status === 'all' ? undefined : status } },
        }),
      ),
  });
  return (
    <>
      <PageHeader
        title="Sessions"
        description={`Conversations with your personas (${environment} environment), with every turn's tool and workflow actions.`}
        actions={
          <Group>
            <SegmentedControl
              size="xs"
              aria-label="Session status"
              value={status}
              onChange={(v) => setStatus(v as typeof status)}
              data={['all', 'active', 'ended']}
            />
          </Group>
        }
      />
      <ErrorAlert error={sessions.error} />
      {sessions.isPending ? (
        <PageLoader />
      ) : sessions.data?.data.length === 0 ? (
        <Empty>No sessions yet.</Empty>
      ) : (
        <ScrollTable minWidth={640}>
          <Table striped highlightOnHover aria-label="Sessions">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Session</Table.Th>
                <Table.Th>Persona</Table.Th>
                <Table.Th>User</Table.Th>
                <Table.Th>Status</Table.Th>
                <Table.Th>Turns</Table.Th>
                <Table.Th>Started</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {sessions.data?.data.map((s) => (
                <Table.Tr key={s.id}>
                  <Table.Td>
                    <Anchor component={Link} to={`/sessions/${s.id}`} ff="monospace">
                      {s.id}
                    </Anchor>
                  </Table.Td>
                  <Table.Td>{s.personaId}</Table.Td>
                  <Table.Td>{s.userId}</Table.Td>
                  <Table.Td>
                    <StatusBadge status={s.status} />
                  </Table.Td>
                  <Table.Td>{s.turnCount}</Table.Td>
                  <Table.Td>{formatTime(s.startedAt)}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </ScrollTable>
      )}
      {sessions.data && sessions.data.pagination.total > sessions.data.data.length ? (
        <Empty>
          Showing the newest {sessions.data.data.length} of {sessions.data.pagination.total}.
        </Empty>
      ) : null}
    </>
  );
}

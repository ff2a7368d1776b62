import { Anchor, Button, Group, SegmentedControl } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router';
import { api, environmentStore, unwrap } from '../api/client';
import type { components } from '../api/schema';
import { type Column, DataTable } from '../components/DataTable';
import { ListPage } from '../components/ListPage';
import { Empty, formatTime, StatusBadge } from '../components/ui';
import { useStoredValue } from '../store';
import { SessionsTestCall } from './sessions/SessionsTestCall';

type Session = components['schemas']['Session'];
type StatusFilter = 'all' | 'active' | 'ended';

const COLUMNS: Column<Session>[] = [
  {
    header: 'Session',
    cell: (s) => (
      <Anchor component={Link} to={`/sessions/${s.id}`} ff="monospace">
        {s.id}
      </Anchor>
    ),
  },
  { header: 'Persona', cell: (s) => s.personaId },
  { header: 'User', cell: (s) => s.userId },
  { header: 'Status', cell: (s) => <StatusBadge status={s.status} /> },
  { header: 'Turns', cell: (s) => s.turnCount },
  { header: 'Started', cell: (s) => formatTime(s.startedAt) },
];

/** Voice sessions of the selected environment, newest first; a test call with a persona. */
export default function SessionsPage() {
  const environment = useStoredValue(environmentStore);
  const [status, setStatus] = useState<StatusFilter>('all');
  const [calling, setCalling] = useState(false);
  const sessions = useQuery({
    queryKey: ['sessions', environment, status],
    queryFn: async () =>
      unwrap(
        await api.GET('/api/v2/developers/sessions', {
          params: { query: { limit: 100, status: status === 'all' ? undefined : status } },
        }),
      ),
  });
  const shown = sessions.data?.data.length ?? 0;
  const total = sessions.data?.pagination.total ?? 0;
  return (
    <ListPage
      title="Sessions"
      description={`Conversations with your personas (${environment} environment), with every turn's tool and workflow actions.`}
      actions={
        <Group>
          <Button variant="default" size="xs" aria-expanded={calling} onClick={() => setCalling(!calling)}>
            {calling ? 'Close test call' : 'Test call'}
          </Button>
          <SegmentedControl
            size="xs"
            aria-label="Session status"
            value={status}
            onChange={(v) => setStatus(v as StatusFilter)}
            data={['all', 'active', 'ended']}
          />
        </Group>
      }
      toolbar={calling ? <SessionsTestCall /> : null}
      items={sessions.data?.data}
      pending={sessions.isPending}
      error={sessions.error}
      empty="No sessions yet."
      footer={
        total > shown ? (
          <Empty>
            Showing the newest {shown} of {total}.
          </Empty>
        ) : null
      }
    >
      {(rows) => (
        <DataTable
          label="Sessions"
          minWidth={640}
          striped
          highlightOnHover
          rows={rows}
          columns={COLUMNS}
          rowKey={(s) => s.id}
        />
      )}
    </ListPage>
  );
}

import { Button } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useCallback, useMemo, useState } from 'react';
import { api, environmentStore, unwrap } from '../api/client';
import { DataTable } from '../components/DataTable';
import { ListPage } from '../components/ListPage';
import { Empty } from '../components/ui';
import { useStoredValue } from '../store';
import {
  NO_FILTERS,
  SessionFilters,
  type SessionFilterValues,
  sessionsQuery,
} from './sessions/SessionFilters';
import { SessionsTestCall } from './sessions/SessionsTestCall';
import { sessionColumns } from './sessions/session-columns';

/** Your personas' names by id (one call; a persona that is gone shows its id). */
function usePersonaNames() {
  const personas = useQuery({
    queryKey: ['personas'],
    queryFn: async () => unwrap(await api.GET('/api/v1/developers/personas')).personas,
  });
  return useMemo(() => {
    const list = (personas.data ?? []).map((p) => ({ id: p.id, name: p.name || p.id }));
    const byId = new Map(list.map((p) => [p.id, p.name]));
    return { list, nameOf: (id: string) => byId.get(id) ?? id };
  }, [personas.data]);
}

/**
 * Voice sessions of the selected environment, newest first: filtered by status, persona, user and
 * day, searched by what was said; a test call with a persona.
 */
export default function SessionsPage() {
  const environment = useStoredValue(environmentStore);
  const [filters, setFilters] = useState<SessionFilterValues>(NO_FILTERS);
  const onFilters = useCallback((next: SessionFilterValues) => setFilters(next), []);
  const [calling, setCalling] = useState(false);
  const personas = usePersonaNames();
  const query = sessionsQuery(filters);
  const sessions = useQuery({
    queryKey: ['sessions', environment, query],
    queryFn: async () =>
      unwrap(await api.GET('/api/v2/developers/sessions', { params: { query: { limit: 100, ...query } } })),
    placeholderData: (previous) => previous,
  });
  const columns = useMemo(() => sessionColumns(personas.nameOf), [personas.nameOf]);
  const shown = sessions.data?.data.length ?? 0;
  const total = sessions.data?.pagination.total ?? 0;
  const filtered = JSON.stringify(filters) !== JSON.stringify(NO_FILTERS);
  return (
    <ListPage
      title="Sessions"
      description={`Conversations with your personas (${environment} environment), with every turn's tool and workflow actions.`}
      actions={
        <Button variant="default" size="xs" aria-expanded={calling} onClick={() => setCalling(!calling)}>
          {calling ? 'Close test call' : 'Test call'}
        </Button>
      }
      toolbar={
        <>
          {calling ? <SessionsTestCall /> : null}
          <SessionFilters value={filters} onChange={onFilters} personas={personas.list} />
        </>
      }
      items={sessions.data?.data}
      pending={sessions.isPending}
      error={sessions.error}
      empty={filtered ? 'No session matches these filters.' : 'No sessions yet.'}
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
          minWidth={900}
          striped
          highlightOnHover
          rows={rows}
          columns={columns}
          rowKey={(s) => s.id}
        />
      )}
    </ListPage>
  );
}

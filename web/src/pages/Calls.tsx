import { Anchor } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router';
import { api, environmentStore, unwrap } from '../api/client';
import { backoffPolling } from '../api/polling';
import { phoneNumbersQuery } from '../api/queries';
import { DataTable } from '../components/DataTable';
import { ListPage } from '../components/ListPage';
import { Empty } from '../components/ui';
import { useStoredValue } from '../store';
import { CallFilters, type CallFilterValues, callsQuery, NO_CALL_FILTERS } from './calls/CallFilters';
import { CALL_COLUMNS, callEnded } from './calls/call-columns';

/**
 * Phone calls of the selected environment, inbound and outbound, newest first: direction, numbers,
 * status, duration; filtered by direction, status and number. Followed while a call is under way.
 */
export default function CallsPage() {
  const environment = useStoredValue(environmentStore);
  const [filters, setFilters] = useState<CallFilterValues>(NO_CALL_FILTERS);
  const numbers = useQuery(phoneNumbersQuery(environment));
  const query = callsQuery(filters);
  const calls = useQuery({
    queryKey: ['calls', environment, query],
    queryFn: async () =>
      unwrap(await api.GET('/api/v2/developers/calls', { params: { query: { limit: 100, ...query } } })),
    placeholderData: (previous) => previous,
    refetchInterval: backoffPolling((page) => Boolean(page?.data.some((c) => !callEnded(c)))),
  });
  const shown = calls.data?.data.length ?? 0;
  const total = calls.data?.pagination.total ?? 0;
  const filtered = JSON.stringify(filters) !== JSON.stringify(NO_CALL_FILTERS);
  return (
    <ListPage
      title="Calls"
      description={
        <>
          Phone calls to and from your{' '}
          <Anchor component={Link} to="/phone-numbers" underline="always">
            numbers
          </Anchor>{' '}
          ({environment} environment). Place a test call from a persona's page (<b>Call a number</b>).
        </>
      }
      toolbar={
        <CallFilters
          value={filters}
          onChange={setFilters}
          numbers={(numbers.data ?? []).map((n) => ({
            id: n.id,
            label: n.name ? `${n.number} (${n.name})` : n.number,
          }))}
        />
      }
      items={calls.data?.data}
      pending={calls.isPending}
      error={calls.error}
      empty={filtered ? 'No call matches these filters.' : 'No calls yet.'}
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
          label="Calls"
          minWidth={900}
          striped
          highlightOnHover
          rows={rows}
          columns={CALL_COLUMNS}
          rowKey={(c) => c.id}
        />
      )}
    </ListPage>
  );
}

import { Code, Group, Pagination, Text } from '@mantine/core';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { api, environmentStore, unwrap } from '../../api/client';
import type { components } from '../../api/schema';
import { type Column, DataTable } from '../../components/DataTable';
import { ListBody } from '../../components/ListPage';
import { formatTime } from '../../components/ui';
import { useStoredValue } from '../../store';
import { JsonBlock } from '../tools/McpToolList';
import { type ActivityFilters, filterQuery } from './filters';

type Activity = components['schemas']['Activity'];
const PAGE_SIZE = 50;

const COLUMNS: Column<Activity>[] = [
  { header: 'When', cell: (a) => formatTime(a.occurredAt) },
  { header: 'Type', cell: (a) => <Code>{a.type}</Code> },
  { header: 'User', cell: (a) => a.userId ?? '—' },
  { header: 'Session', cell: (a) => a.sessionId ?? '—', style: { wordBreak: 'break-all' } },
  {
    header: 'Payload',
    cell: (a) => (
      <details>
        <summary>{Object.keys(a.payload).join(', ') || 'empty'}</summary>
        <JsonBlock value={a.payload} />
      </details>
    ),
  },
];

/** The activities matching the filters, newest first, 50 a page. */
export function ActivityLog({ filters }: { filters: ActivityFilters }) {
  const environment = useStoredValue(environmentStore);
  const [page, setPage] = useState(1);
  const [shownFilters, setShownFilters] = useState(filters);
  // other filters start again on the first page
  if (shownFilters !== filters) {
    setShownFilters(filters);
    setPage(1);
  }
  const query = { ...filterQuery(filters), limit: PAGE_SIZE, offset: (page - 1) * PAGE_SIZE };
  const activities = useQuery({
    queryKey: ['activities', environment, query],
    placeholderData: keepPreviousData,
    queryFn: async () => unwrap(await api.GET('/api/v2/developers/activities', { params: { query } })),
  });
  const total = activities.data?.pagination.total ?? 0;
  return (
    <ListBody
      items={activities.data?.data}
      pending={activities.isPending}
      error={activities.error}
      empty={<>No activities match in the {environment} environment.</>}
    >
      {(rows) => (
        <>
          <DataTable
            label="Activities"
            minWidth={760}
            striped
            rows={rows}
            columns={COLUMNS}
            rowKey={(a) => a.id}
          />
          <Group justify="space-between" mt="sm">
            <Text size="sm" c="dimmed" data-testid="activity-count">
              {total} {total === 1 ? 'activity' : 'activities'}
            </Text>
            {total > PAGE_SIZE ? (
              <Pagination
                total={Math.ceil(total / PAGE_SIZE)}
                value={page}
                onChange={setPage}
                getControlProps={(control) => ({ 'aria-label': `${control} page` })}
                aria-label="Activity pages"
              />
            ) : null}
          </Group>
        </>
      )}
    </ListBody>
  );
}

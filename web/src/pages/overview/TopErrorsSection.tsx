import { Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import type { components } from '../../api/schema';
import { type Column, DataTable } from '../../components/DataTable';
import { ListBody } from '../../components/ListPage';
import { formatNumber, formatTime } from '../../components/ui';
import type { AnalyticsQuery } from './analyticsQuery';
import { Section } from './Section';

type ErrorEntry = components['schemas']['AnalyticsErrorEntry'];

const COLUMNS: Column<ErrorEntry>[] = [
  {
    header: 'Code',
    cell: (e) => (
      <>
        <Text size="sm" fw={700}>
          {e.code}
        </Text>
        <Text size="xs" style={{ wordBreak: 'break-word' }}>
          {e.message}
        </Text>
      </>
    ),
  },
  { header: 'Count', cell: (e) => formatNumber(e.count) },
  { header: 'Last', cell: (e) => formatTime(e.lastOccurred) },
];

/** The period's ten most frequent error codes. */
export function TopErrorsSection({ query }: { query: AnalyticsQuery }) {
  const errors = useQuery({
    queryKey: ['analytics', 'errors', query],
    queryFn: async () => unwrap(await api.GET('/api/v1/developers/analytics/errors', { params: { query } })),
  });
  return (
    <Section id="errors-heading" title="Top errors">
      <ListBody
        items={errors.data?.errors}
        pending={errors.isPending}
        error={errors.error}
        empty="No errors in this period."
      >
        {(rows) => (
          <DataTable
            label="Top errors"
            data-testid="top-errors"
            minWidth={420}
            rows={rows.slice(0, 10)}
            columns={COLUMNS}
            rowKey={(e) => e.code}
          />
        )}
      </ListBody>
    </Section>
  );
}

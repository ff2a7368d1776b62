import { Paper } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { lazy, Suspense } from 'react';
import { api, type Environment, unwrap } from '../../api/client';
import type { components } from '../../api/schema';
import { type Column, DataTable } from '../../components/DataTable';
import { ErrorAlert, PageLoader } from '../../components/ui';
import { Section } from './Section';

const UsageChart = lazy(() => import('../../components/UsageChart'));

type Day = components['schemas']['AnalyticsUsageEntry'];

const DAY_COLUMNS: Column<Day>[] = [
  { header: 'Date', cell: (u) => u.date },
  { header: 'API calls', cell: (u) => u.apiCalls },
  { header: 'Errors', cell: (u) => u.errors },
  { header: 'Unique users', cell: (u) => u.uniqueUsers },
];

/** Daily usage of the last 30 days: a chart, and the same figures as a table. */
export function UsageSection({ environment }: { environment: Environment }) {
  const usage = useQuery({
    queryKey: ['analytics', 'usage', environment],
    queryFn: async () =>
      unwrap(await api.GET('/api/v1/developers/analytics/usage', { params: { query: { environment } } })),
  });
  return (
    <Section id="usage-heading" title="Usage, last 30 days">
      {/* render the chart (hidden) at once, so its code loads alongside the figures, not after them */}
      {usage.data ? null : (
        <Suspense fallback={null}>
          <div hidden>
            <UsageChart usage={[]} />
          </div>
        </Suspense>
      )}
      <ErrorAlert error={usage.error} />
      <Paper withBorder p="md">
        {usage.data ? (
          <Suspense fallback={<PageLoader />}>
            <UsageChart usage={usage.data.usage} />
          </Suspense>
        ) : (
          <PageLoader />
        )}
      </Paper>
      {usage.data ? (
        <details>
          <summary>Usage as a table</summary>
          <DataTable
            label="Daily usage"
            minWidth={360}
            rows={usage.data.usage}
            columns={DAY_COLUMNS}
            rowKey={(u) => u.date}
          />
        </details>
      ) : null}
    </Section>
  );
}

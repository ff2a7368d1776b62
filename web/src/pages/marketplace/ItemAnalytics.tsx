import { Group, Paper, SegmentedControl, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { api, unwrap } from '../../api/client';
import type { components } from '../../api/schema';
import { ErrorAlert, formatNumber, formatTime, PageLoader } from '../../components/ui';

type Analytics = components['schemas']['MarketplaceItemAnalytics'];
type Period = '7d' | '30d' | '90d';

/** The analytics figures as label and shown value. */
function figures({ metrics: m, revenue }: Analytics): [string, string][] {
  return [
    ['Installs', formatNumber(m.totalInstalls)],
    ['Active installs', formatNumber(m.activeInstalls)],
    ['Executions', formatNumber(m.totalExecutions)],
    ['Success rate', `${formatNumber(m.successRate * 100, 1)}%`],
    ['Avg execution', `${formatNumber(m.avgExecutionTimeMs, 1)} ms`],
    ['Errors', formatNumber(m.errorCount)],
    ['Users', formatNumber(m.uniqueUsers)],
    [
      'Revenue',
      (revenue.periodCents / 100).toLocaleString(undefined, {
        style: 'currency',
        currency: revenue.currency,
      }),
    ],
  ];
}

/** One published item's analytics over a period: installs, executions, errors, revenue, top errors. */
export function ItemAnalytics({ itemId }: { itemId: string }) {
  const [period, setPeriod] = useState<Period>('30d');
  const analytics = useQuery({
    queryKey: ['marketplace', 'analytics', itemId, period],
    queryFn: async () =>
      unwrap(
        await api.GET('/api/marketplace/publisher/{id}/analytics', {
          params: { path: { id: itemId }, query: { period } },
        }),
      ),
  });
  return (
    <Paper withBorder p="md" data-testid="item-analytics">
      <Group justify="space-between" mb="sm">
        <Title order={2} size="h4">
          Analytics of {itemId}
        </Title>
        <SegmentedControl
          size="xs"
          aria-label="Analytics period"
          value={period}
          onChange={(v) => setPeriod(v as Period)}
          data={['7d', '30d', '90d']}
        />
      </Group>
      <ErrorAlert error={analytics.error} />
      {analytics.data ? <AnalyticsFigures analytics={analytics.data} /> : <PageLoader />}
    </Paper>
  );
}

function AnalyticsFigures({ analytics }: { analytics: Analytics }) {
  return (
    <Stack gap="sm">
      <SimpleGrid cols={{ base: 2, sm: 4 }} spacing="sm">
        {figures(analytics).map(([label, value]) => (
          <div key={label}>
            <Text size="xs" tt="uppercase" fw={700}>
              {label}
            </Text>
            <Text fw={700}>{value}</Text>
          </div>
        ))}
      </SimpleGrid>
      {analytics.topErrors.length ? (
        <Text size="sm">
          Top errors:{' '}
          {analytics.topErrors
            .map((e) => `${e.code} ×${e.count} (last ${formatTime(e.lastOccurred)})`)
            .join(', ')}
        </Text>
      ) : null}
    </Stack>
  );
}

import { SegmentedControl, SimpleGrid, Stack, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { api, environmentStore, unwrap } from '../api/client';
import { ErrorAlert, formatTime, PageHeader } from '../components/ui';
import { useStoredValue } from '../store';
import type { AnalyticsQuery } from './overview/analyticsQuery';
import { FigureCards, type Period } from './overview/FigureCards';
import { GettingStarted } from './overview/GettingStarted';
import { PersonasSection } from './overview/PersonasSection';
import { ProviderUsageSection } from './overview/ProviderUsageSection';
import { TopErrorsSection } from './overview/TopErrorsSection';
import { UsageSection } from './overview/UsageSection';

/**
 * Overview: the analytics figures with their changes, daily usage, busiest personas, top errors, and
 * the provider calls of the last 30 days.
 */
export default function OverviewPage() {
  const environment = useStoredValue(environmentStore);
  const [period, setPeriod] = useState<Period>('week');
  const query: AnalyticsQuery = { period, environment };
  const overview = useQuery({
    queryKey: ['analytics', 'overview', query],
    queryFn: async () =>
      unwrap(await api.GET('/api/v1/developers/analytics/overview', { params: { query } })),
  });
  return (
    <>
      <PageHeader
        title="Overview"
        description={`Your platform traffic in the ${environment} environment, from recorded API calls and sessions.`}
        actions={
          <SegmentedControl
            aria-label="Period"
            value={period}
            onChange={(v) => setPeriod(v as Period)}
            data={[
              { value: 'day', label: 'Day' },
              { value: 'week', label: 'Week' },
              { value: 'month', label: 'Month' },
              { value: 'year', label: 'Year' },
            ]}
          />
        }
      />
      <GettingStarted />
      <ErrorAlert error={overview.error} title="The figures did not load" />
      <FigureCards overview={overview.data?.overview} period={period} />
      {overview.data ? (
        <Text size="xs" mb="md">
          {formatTime(overview.data.from)} – {formatTime(overview.data.to)}
        </Text>
      ) : null}
      <Stack gap="lg">
        <UsageSection environment={environment} />
        <SimpleGrid cols={{ base: 1, lg: 2 }} spacing="lg">
          <TopErrorsSection query={query} />
          <PersonasSection query={query} />
        </SimpleGrid>
        <ProviderUsageSection />
      </Stack>
    </>
  );
}

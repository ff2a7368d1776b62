import { Group, Paper, Progress, SegmentedControl, Stack, Text, TextInput, Title } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { lazy, Suspense, useState } from 'react';
import { api, environmentStore, unwrap } from '../../api/client';
import type { components } from '../../api/schema';
import { type Column, DataTable } from '../../components/DataTable';
import { ErrorAlert, formatNumber, formatTime, PageLoader } from '../../components/ui';
import { useStoredValue } from '../../store';
import { type ActivityFilters, daysBetween, filterQuery } from './filters';

const ActivityDayChart = lazy(() => import('./ActivityDayChart'));

type Stats = components['schemas']['ActivityStats'];
type StatsGroup = components['schemas']['ActivityStatsGroup'];
type GroupBy = 'day' | 'type' | 'user';

const figure = (value: number | null | undefined) =>
  value === null || value === undefined ? '—' : formatNumber(value, 2);

/** GET /activities/stats for the filters: counts by day (a chart), type or user (bars), with an optional metric. */
export function ActivityStats({ filters }: { filters: ActivityFilters }) {
  const environment = useStoredValue(environmentStore);
  const [groupBy, setGroupBy] = useState<GroupBy>('day');
  const [metricInput, setMetricInput] = useState('');
  const [metric] = useDebouncedValue(metricInput.trim(), 500);
  const query = { ...filterQuery(filters), groupBy, metric: metric || undefined, limit: 1000 };
  const stats = useQuery({
    queryKey: ['activity-stats', environment, query],
    placeholderData: keepPreviousData,
    queryFn: async () =>
      unwrap(await api.GET('/api/v2/developers/activities/stats', { params: { query } })).data,
  });
  const s = stats.data;
  return (
    <section aria-labelledby="activity-stats-heading">
      <Group justify="space-between" align="flex-end" mb="sm" gap="sm">
        <Title order={2} size="h3" id="activity-stats-heading">
          Statistics
        </Title>
        <Group gap="sm" align="flex-end">
          <SegmentedControl
            aria-label="Group by"
            value={groupBy}
            onChange={(v) => setGroupBy(v as GroupBy)}
            data={[
              { value: 'day', label: 'By day' },
              { value: 'type', label: 'By type' },
              { value: 'user', label: 'By user' },
            ]}
          />
          <TextInput
            label="Metric (payload path)"
            placeholder="order.total"
            value={metricInput}
            onChange={(e) => setMetricInput(e.currentTarget.value)}
          />
        </Group>
      </Group>
      <ErrorAlert error={stats.error} title="The statistics did not load" />
      {s ? <StatsBody stats={s} /> : stats.isPending ? <PageLoader /> : null}
    </section>
  );
}

function StatsBody({ stats }: { stats: Stats }) {
  const columns: Column<StatsGroup>[] = [
    {
      header: stats.groupBy === 'day' ? 'Day (UTC)' : stats.groupBy === 'user' ? 'User' : 'Type',
      cell: (g) => g.key ?? '(no user)',
    },
    { header: 'Activities', cell: (g) => g.count },
    ...(stats.metric
      ? [
          { header: 'Sum', cell: (g: StatsGroup) => figure(g.sum) },
          { header: 'Average', cell: (g: StatsGroup) => figure(g.avg) },
          { header: 'Min', cell: (g: StatsGroup) => figure(g.min) },
          { header: 'Max', cell: (g: StatsGroup) => figure(g.max) },
        ]
      : []),
  ];
  return (
    <Stack gap="sm">
      <Text size="sm" data-testid="activity-stats-total">
        {stats.total} activities from {formatTime(stats.from)} to {formatTime(stats.to)}
        {stats.metric
          ? ` · ${stats.metric}: sum ${figure(stats.sum)}, average ${figure(stats.avg)} (${stats.skipped ?? 0} without a number)`
          : ''}
      </Text>
      <Paper withBorder p="md">
        {stats.groupBy === 'day' ? <DayChart stats={stats} /> : <GroupBars stats={stats} />}
      </Paper>
      <details>
        <summary>Statistics as a table</summary>
        <DataTable
          label="Activity statistics"
          minWidth={420}
          rows={stats.groups}
          columns={columns}
          rowKey={(g) => g.key ?? ''}
        />
      </details>
    </Stack>
  );
}

/** Every day of the window, zero where nothing happened. */
function DayChart({ stats }: { stats: Stats }) {
  const byDay = new Map(stats.groups.map((g) => [g.key, g]));
  const days = daysBetween(stats.from, stats.to);
  const counts = days.map((d) => byDay.get(d)?.count ?? 0);
  const sums = stats.metric ? days.map((d) => byDay.get(d)?.sum ?? null) : undefined;
  return (
    <Suspense fallback={<PageLoader />}>
      <ActivityDayChart days={days} counts={counts} sums={sums} metric={stats.metric ?? undefined} />
    </Suspense>
  );
}

/** Types or users as bars, the largest first. */
function GroupBars({ stats }: { stats: Stats }) {
  if (stats.groups.length === 0) return <Text c="dimmed">No activities in this window.</Text>;
  const most = Math.max(...stats.groups.map((g) => g.count));
  return (
    <Stack gap={6} data-testid="activity-bars">
      {stats.groups.map((g) => (
        <div key={g.key ?? ''}>
          <Group justify="space-between" gap="xs">
            <Text size="sm" ff="monospace">
              {g.key ?? '(no user)'}
            </Text>
            <Text size="sm">{g.count}</Text>
          </Group>
          <Progress value={(g.count / most) * 100} aria-label={`${g.key ?? 'no user'}: ${g.count}`} />
        </div>
      ))}
    </Stack>
  );
}

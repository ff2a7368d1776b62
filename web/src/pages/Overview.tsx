import {
  Paper,
  SegmentedControl,
  SimpleGrid,
  Stack,
  Table,
  Text,
  Title,
  VisuallyHidden,
} from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { lazy, Suspense, useState } from 'react';
import { api, environmentStore, unwrap } from '../api/client';
import type { components } from '../api/schema';
import {
  Empty,
  ErrorAlert,
  formatNumber,
  formatTime,
  GOOD,
  PageHeader,
  PageLoader,
  ScrollTable,
} from '../components/ui';
import { useStoredValue } from '../store';

const UsageChart = lazy(() => import('../components/UsageChart'));

type Overview = components['schemas']['AnalyticsOverview'];
type Period = 'day' | 'week' | 'month' | 'year';

interface Card {
  key: keyof Overview &
    ('totalApiCalls' | 'uniqueUsers' | 'activePersonas' | 'errorRate' | 'avgResponseTime');
  label: string;
  format(value: number): string;
  /** A rise is bad news (errors, latency). */
  lowerIsBetter?: boolean;
}

const CARDS: Card[] = [
  { key: 'totalApiCalls', label: 'API calls', format: (v) => formatNumber(v) },
  { key: 'uniqueUsers', label: 'Unique users', format: (v) => formatNumber(v) },
  { key: 'activePersonas', label: 'Active personas', format: (v) => formatNumber(v) },
  {
    key: 'errorRate',
    label: 'Error rate',
    format: (v) => `${formatNumber(v * 100, 2)}%`,
    lowerIsBetter: true,
  },
  {
    key: 'avgResponseTime',
    label: 'Avg response time',
    format: (v) => `${formatNumber(v, 1)} ms`,
    lowerIsBetter: true,
  },
];

function Change({
  value,
  lowerIsBetter,
  period,
}: {
  value: number;
  lowerIsBetter?: boolean;
  period: Period;
}) {
  const good = value === 0 ? null : value > 0 !== Boolean(lowerIsBetter);
  const sign = value > 0 ? '+' : value < 0 ? '−' : '±';
  return (
    <Text size="sm" c={good === null ? 'dimmed' : good ? GOOD : 'red.9'} data-change={value}>
      {value > 0 ? '▲' : value < 0 ? '▼' : ''} {sign}
      {formatNumber(Math.abs(value) * 100, 1)}%
      <VisuallyHidden> compared with the previous {period}</VisuallyHidden>
      <span aria-hidden> vs previous {period}</span>
    </Text>
  );
}

/** Overview: the analytics figures with their changes, daily usage, busiest personas and top errors. */
export default function OverviewPage() {
  const environment = useStoredValue(environmentStore);
  const [period, setPeriod] = useState<Period>('week');
  const query = { period, environment };
  const overview = useQuery({
    queryKey: ['analytics', 'overview', query],
    queryFn: async () =>
      unwrap(await api.GET('/api/v1/developers/analytics/overview', { params: { query } })),
  });
  const usage = useQuery({
    queryKey: ['analytics', 'usage', environment],
    queryFn: async () =>
      unwrap(await api.GET('/api/v1/developers/analytics/usage', { params: { query: { environment } } })),
  });
  const personas = useQuery({
    queryKey: ['analytics', 'personas', query],
    queryFn: async () =>
      unwrap(await api.GET('/api/v1/developers/analytics/personas', { params: { query } })),
  });
  const errors = useQuery({
    queryKey: ['analytics', 'errors', query],
    queryFn: async () => unwrap(await api.GET('/api/v1/developers/analytics/errors', { params: { query } })),
  });

  return (
    <>
      {/* render the chart (hidden) at once, so its code loads alongside the figures, not after them */}
      {usage.data ? null : (
        <Suspense fallback={null}>
          <div hidden>
            <UsageChart usage={[]} />
          </div>
        </Suspense>
      )}
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
      <ErrorAlert error={overview.error} title="The figures did not load" />
      <SimpleGrid cols={{ base: 1, xs: 2, md: 5 }} spacing="sm" mb="md">
        {CARDS.map((card) => (
          <Paper withBorder p="md" key={card.key} data-testid={`card-${card.key}`}>
            <Text size="xs" tt="uppercase" fw={700}>
              {card.label}
            </Text>
            <Text size="xl" fw={700} data-testid={`value-${card.key}`}>
              {overview.data ? card.format(overview.data.overview[card.key]) : '…'}
            </Text>
            {overview.data ? (
              <Change
                value={overview.data.overview[`${card.key}Change`]}
                lowerIsBetter={card.lowerIsBetter}
                period={period}
              />
            ) : null}
          </Paper>
        ))}
      </SimpleGrid>
      {overview.data ? (
        <Text size="xs" mb="md">
          {formatTime(overview.data.from)} – {formatTime(overview.data.to)}
        </Text>
      ) : null}

      <Stack gap="lg">
        <section aria-labelledby="usage-heading">
          <Title order={2} size="h3" id="usage-heading" mb="xs">
            Usage, last 30 days
          </Title>
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
              <ScrollTable minWidth={360}>
                <Table aria-label="Daily usage">
                  <Table.Thead>
                    <Table.Tr>
                      <Table.Th>Date</Table.Th>
                      <Table.Th>API calls</Table.Th>
                      <Table.Th>Errors</Table.Th>
                      <Table.Th>Unique users</Table.Th>
                    </Table.Tr>
                  </Table.Thead>
                  <Table.Tbody>
                    {usage.data.usage.map((u) => (
                      <Table.Tr key={u.date}>
                        <Table.Td>{u.date}</Table.Td>
                        <Table.Td>{u.apiCalls}</Table.Td>
                        <Table.Td>{u.errors}</Table.Td>
                        <Table.Td>{u.uniqueUsers}</Table.Td>
                      </Table.Tr>
                    ))}
                  </Table.Tbody>
                </Table>
              </ScrollTable>
            </details>
          ) : null}
        </section>

        <SimpleGrid cols={{ base: 1, lg: 2 }} spacing="lg">
          <section aria-labelledby="errors-heading">
            <Title order={2} size="h3" id="errors-heading" mb="xs">
              Top errors
            </Title>
            <ErrorAlert error={errors.error} />
            {errors.isPending ? (
              <PageLoader />
            ) : errors.data?.errors.length === 0 ? (
              <Empty>No errors in this period.</Empty>
            ) : (
              <ScrollTable minWidth={420}>
                <Table aria-label="Top errors" data-testid="top-errors">
                  <Table.Thead>
                    <Table.Tr>
                      <Table.Th>Code</Table.Th>
                      <Table.Th>Count</Table.Th>
                      <Table.Th>Last</Table.Th>
                    </Table.Tr>
                  </Table.Thead>
                  <Table.Tbody>
                    {errors.data?.errors.slice(0, 10).map((e) => (
                      <Table.Tr key={e.code}>
                        <Table.Td>
                          <Text size="sm" fw={700}>
                            {e.code}
                          </Text>
                          <Text size="xs" style={{ wordBreak: 'break-word' }}>
                            {e.message}
                          </Text>
                        </Table.Td>
                        <Table.Td>{formatNumber(e.count)}</Table.Td>
                        <Table.Td>{formatTime(e.lastOccurred)}</Table.Td>
                      </Table.Tr>
                    ))}
                  </Table.Tbody>
                </Table>
              </ScrollTable>
            )}
          </section>
          <section aria-labelledby="personas-heading">
            <Title order={2} size="h3" id="personas-heading" mb="xs">
              Personas
            </Title>
            <ErrorAlert error={personas.error} />
            {personas.isPending ? (
              <PageLoader />
            ) : personas.data?.personas.length === 0 ? (
              <Empty>No sessions in this period.</Empty>
            ) : (
              <ScrollTable minWidth={420}>
                <Table aria-label="Personas by sessions">
                  <Table.Thead>
                    <Table.Tr>
                      <Table.Th>Persona</Table.Th>
                      <Table.Th>Sessions</Table.Th>
                      <Table.Th>Avg duration</Table.Th>
                      <Table.Th>Users</Table.Th>
                    </Table.Tr>
                  </Table.Thead>
                  <Table.Tbody>
                    {personas.data?.personas.map((p) => (
                      <Table.Tr key={p.personaId}>
                        <Table.Td>{p.personaName || p.personaId}</Table.Td>
                        <Table.Td>{formatNumber(p.totalCalls)}</Table.Td>
                        <Table.Td>{formatNumber(p.avgSessionDuration / 1000, 1)} s</Table.Td>
                        <Table.Td>{formatNumber(p.uniqueUsers)}</Table.Td>
                      </Table.Tr>
                    ))}
                  </Table.Tbody>
                </Table>
              </ScrollTable>
            )}
          </section>
        </SimpleGrid>
      </Stack>
    </>
  );
}

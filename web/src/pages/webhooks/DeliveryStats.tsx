import { Paper, SimpleGrid, Text } from '@mantine/core';
import type { components } from '../../api/schema';
import { formatNumber } from '../../components/ui';

type Stats = components['schemas']['DeliveryStats'];

function Stat({ label, value }: { label: string; value: string }) {
  return (
    <Paper withBorder p="sm">
      <Text size="xs" tt="uppercase" fw={700}>
        {label}
      </Text>
      <Text size="xl" fw={700} data-testid={`stat-${label.toLowerCase().replace(/\s+/g, '-')}`}>
        {value}
      </Text>
    </Paper>
  );
}

/**
 * The mean latency of the delivered attempts: none delivered is "—", not a mean of 0 ms; under 10 ms
 * it keeps a decimal (a local receiver answers in about a millisecond).
 */
export function averageLatency(stats: Pick<Stats, 'successful' | 'averageLatencyMs'>): string {
  if (stats.successful === 0) return '—';
  return `${formatNumber(stats.averageLatencyMs, stats.averageLatencyMs < 10 ? 1 : 0)} ms`;
}

/** A webhook's delivery counts and average latency, one figure a box. */
export function DeliveryStats({ stats }: { stats: Stats }) {
  return (
    <SimpleGrid cols={{ base: 2, sm: 5 }} spacing="sm">
      <Stat label="Deliveries" value={formatNumber(stats.total)} />
      <Stat label="Delivered" value={formatNumber(stats.successful)} />
      <Stat label="Failed" value={formatNumber(stats.failed)} />
      <Stat label="Pending" value={formatNumber(stats.pending)} />
      <Stat label="Avg latency" value={averageLatency(stats)} />
    </SimpleGrid>
  );
}

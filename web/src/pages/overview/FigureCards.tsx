import { Paper, SimpleGrid, Text, VisuallyHidden } from '@mantine/core';
import type { components } from '../../api/schema';
import { formatNumber, GOOD } from '../../components/ui';

type Overview = components['schemas']['AnalyticsOverview'];
export type Period = 'day' | 'week' | 'month' | 'year';

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

/** A figure's change against the previous period, green when it is good news, red when bad. */
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

/** The period's headline figures, one card each, with their changes ("…" until they load). */
export function FigureCards({ overview, period }: { overview: Overview | undefined; period: Period }) {
  return (
    <SimpleGrid cols={{ base: 1, xs: 2, md: 5 }} spacing="sm" mb="md">
      {CARDS.map((card) => (
        <Paper withBorder p="md" key={card.key} data-testid={`card-${card.key}`}>
          <Text size="xs" tt="uppercase" fw={700}>
            {card.label}
          </Text>
          <Text size="xl" fw={700} data-testid={`value-${card.key}`}>
            {overview ? card.format(overview[card.key]) : '…'}
          </Text>
          {overview ? (
            <Change
              value={overview[`${card.key}Change`]}
              lowerIsBetter={card.lowerIsBetter}
              period={period}
            />
          ) : null}
        </Paper>
      ))}
    </SimpleGrid>
  );
}

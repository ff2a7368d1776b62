import { Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import type { components } from '../../api/schema';
import { type Column, DataTable } from '../../components/DataTable';
import { ListBody } from '../../components/ListPage';
import { formatNumber } from '../../components/ui';
import { KIND_LABELS } from '../providers/presets';
import { Section } from './Section';

type UsageRow = components['schemas']['ProviderUsageReport']['usage'][number];

const DAYS = 30;

/** What a row's provider was used for, in the unit its kind is metered in (docs/providers.md "Usage"). */
export function usedAmount(row: UsageRow): string {
  if (row.kind === 'chat') {
    return `${formatNumber(row.inputTokens)} tokens in / ${formatNumber(row.outputTokens)} out`;
  }
  if (row.kind === 'voice') return `${formatNumber(row.characters)} characters`;
  return `${formatNumber(row.audioSeconds / 60, 1)} audio minutes`;
}

const COLUMNS: Column<UsageRow>[] = [
  {
    header: 'Provider',
    cell: (r) => (
      <Text size="sm" fw={600} style={{ overflowWrap: 'anywhere' }}>
        {r.providerName}
      </Text>
    ),
  },
  { header: 'Kind', cell: (r) => KIND_LABELS[r.kind] },
  { header: 'Calls', cell: (r) => formatNumber(r.calls) },
  { header: 'Used', cell: (r) => <span data-testid={`usage-${r.provider}-${r.kind}`}>{usedAmount(r)}</span> },
];

/**
 * The account's provider calls of the last 30 days (GET /usage): chat tokens in and out, voice
 * characters, transcription audio minutes, per provider. The account's, whichever environment.
 */
export function ProviderUsageSection() {
  const usage = useQuery({
    queryKey: ['provider-usage', DAYS],
    queryFn: async () =>
      unwrap(await api.GET('/api/v1/developers/usage', { params: { query: { days: DAYS } } })),
  });
  return (
    <Section id="provider-usage-heading" title={`Provider usage (${DAYS} days)`}>
      <Text size="xs" mb="xs">
        Model, transcription and voice calls of both environments, metered per provider
        {usage.data ? ` since ${usage.data.since} (UTC)` : ''}. The catalog's own voices are not metered.
      </Text>
      <ListBody
        items={usage.data?.usage}
        pending={usage.isPending}
        error={usage.error}
        empty={`No provider calls in the last ${DAYS} days.`}
      >
        {(rows) => (
          <DataTable
            label="Provider usage"
            data-testid="provider-usage"
            minWidth={480}
            rows={rows}
            columns={COLUMNS}
            rowKey={(r) => `${r.provider}:${r.kind}`}
          />
        )}
      </ListBody>
    </Section>
  );
}

import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import type { components } from '../../api/schema';
import { type Column, DataTable } from '../../components/DataTable';
import { ListBody } from '../../components/ListPage';
import { formatNumber } from '../../components/ui';
import type { AnalyticsQuery } from './analyticsQuery';
import { Section } from './Section';

type PersonaEntry = components['schemas']['AnalyticsPersonaEntry'];

const COLUMNS: Column<PersonaEntry>[] = [
  { header: 'Persona', cell: (p) => p.personaName || p.personaId },
  { header: 'Sessions', cell: (p) => formatNumber(p.totalCalls) },
  { header: 'Avg duration', cell: (p) => `${formatNumber(p.avgSessionDuration / 1000, 1)} s` },
  { header: 'Users', cell: (p) => formatNumber(p.uniqueUsers) },
  { header: 'Analysed', cell: (p) => formatNumber(p.analyzedCalls) },
  {
    header: 'Success rate',
    // unknown, not 0%, when no call was graded against success criteria
    cell: (p) => (p.successRate === null ? '—' : `${formatNumber(p.successRate * 100, 1)}%`),
  },
];

/**
 * The period's personas by sessions, with their average session length and users, and the share of
 * their analysed calls that met the persona's success criteria (docs/sessions.md "Post-call analysis").
 */
export function PersonasSection({ query }: { query: AnalyticsQuery }) {
  const personas = useQuery({
    queryKey: ['analytics', 'personas', query],
    queryFn: async () =>
      unwrap(await api.GET('/api/v1/developers/analytics/personas', { params: { query } })),
  });
  return (
    <Section id="personas-heading" title="Personas">
      <ListBody
        items={personas.data?.personas}
        pending={personas.isPending}
        error={personas.error}
        empty="No sessions in this period."
      >
        {(rows) => (
          <DataTable
            label="Personas by sessions"
            minWidth={600}
            rows={rows}
            columns={COLUMNS}
            rowKey={(p) => p.personaId}
          />
        )}
      </ListBody>
    </Section>
  );
}

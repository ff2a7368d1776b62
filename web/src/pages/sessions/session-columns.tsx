import { Anchor, Badge } from '@mantine/core';
import { Link } from 'react-router';
import type { components } from '../../api/schema';
import type { Column } from '../../components/DataTable';
import { formatTime, StatusBadge } from '../../components/ui';

export type Session = components['schemas']['Session'];

/** "1 min 05 s", "12 s", "1 h 02 min": how long a session lasted, to the second. */
export function formatDuration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ${String(s % 60).padStart(2, '0')} s`;
  return `${Math.floor(m / 60)} h ${String(m % 60).padStart(2, '0')} min`;
}

/** An ended session's length; a live one's so far, marked as such. */
export function sessionDuration(s: Pick<Session, 'startedAt' | 'endedAt'>, now = Date.now()): string {
  const start = Date.parse(s.startedAt);
  if (s.endedAt) return formatDuration(Date.parse(s.endedAt) - start);
  return `${formatDuration(now - start)} so far`;
}

/** How a session ended, in words. */
export function endReasonText(reason: Session['endReason']): string {
  if (!reason) return '—';
  return reason.replace(/_/g, ' ');
}

/** The sessions table's columns; the persona is named when its name is known. */
export function sessionColumns(personaName: (id: string) => string): Column<Session>[] {
  return [
    {
      header: 'Session',
      cell: (s) => (
        <Anchor component={Link} to={`/sessions/${s.id}`} ff="monospace">
          {s.id}
        </Anchor>
      ),
    },
    { header: 'Persona', cell: (s) => personaName(s.personaId) },
    {
      header: 'User',
      cell: (s) =>
        s.testRunId ? (
          <>
            {s.userId}{' '}
            <Badge size="xs" variant="light" color="gray" title={s.testRunId}>
              test run
            </Badge>
          </>
        ) : (
          s.userId
        ),
    },
    { header: 'Status', cell: (s) => <StatusBadge status={s.status} /> },
    { header: 'Started', cell: (s) => formatTime(s.startedAt) },
    { header: 'Duration', cell: (s) => sessionDuration(s) },
    { header: 'End reason', cell: (s) => endReasonText(s.endReason) },
    { header: 'Turns', cell: (s) => s.turnCount },
  ];
}

import { Anchor, Code } from '@mantine/core';
import { Link } from 'react-router';
import type { components } from '../../api/schema';
import type { Column } from '../../components/DataTable';
import { formatTime, StatusBadge } from '../../components/ui';
import { formatDuration } from '../sessions/session-columns';

export type Call = components['schemas']['Call'];

/** Whether a call has ended (its status is final). */
export const callEnded = (c: Pick<Call, 'status'>) =>
  !['queued', 'ringing', 'in-progress'].includes(c.status);

/** How long the call lasted (the carrier's duration once ended), or "—" while it has none. */
export const callDuration = (c: Pick<Call, 'durationS'>) =>
  c.durationS === null ? '—' : formatDuration(c.durationS * 1000);

/** Why a call ended, in words ("no answer", "hangup", the carrier's refusal). */
export const endedReasonText = (reason: string | null) => (reason ? reason.replace(/_/g, ' ') : '—');

/** The calls table's columns. */
export const CALL_COLUMNS: Column<Call>[] = [
  {
    header: 'Call',
    cell: (c) => (
      <Anchor component={Link} to={`/calls/${c.id}`} ff="monospace">
        {c.id}
      </Anchor>
    ),
  },
  { header: 'Direction', cell: (c) => c.direction },
  { header: 'From', cell: (c) => <Code>{c.from}</Code> },
  { header: 'To', cell: (c) => <Code>{c.to}</Code> },
  { header: 'Status', cell: (c) => <StatusBadge status={c.status} /> },
  { header: 'Placed', cell: (c) => formatTime(c.createdAt) },
  { header: 'Duration', cell: callDuration },
  { header: 'Ended', cell: (c) => endedReasonText(c.endedReason) },
];

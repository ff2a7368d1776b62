import { Text } from '@mantine/core';
import { type Column, DataTable } from '../../components/DataTable';
import { formatTime, StatusBadge } from '../../components/ui';
import { ReviewNotes } from './ReviewProgress';
import type { ItemVersion } from './usePublishedItem';

const COLUMNS: Column<ItemVersion>[] = [
  { header: 'Version', cell: (v) => v.version },
  { header: 'Status', cell: (v) => <StatusBadge status={v.status} /> },
  { header: 'Submitted', cell: (v) => formatTime(v.submittedAt) },
  { header: 'Decided', cell: (v) => formatTime(v.decidedAt) },
  { header: 'Changelog', cell: (v) => <Text size="sm">{v.changelog ?? '—'}</Text> },
  { header: 'Review notes', cell: (v) => <ReviewNotes version={v} /> },
];

/** Every version submitted, newest first, with its review findings and decision. */
export function VersionsTable({ versions }: { versions: ItemVersion[] }) {
  return (
    <DataTable
      label="Versions"
      minWidth={760}
      striped
      rows={versions}
      columns={COLUMNS}
      rowKey={(v) => v.version}
    />
  );
}

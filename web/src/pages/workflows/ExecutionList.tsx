import { Anchor, UnstyledButton } from '@mantine/core';
import { Link } from 'react-router';
import type { components } from '../../api/schema';
import { type Column, DataTable } from '../../components/DataTable';
import { ListBody } from '../../components/ListPage';
import { formatTime, StatusBadge } from '../../components/ui';

type Execution = components['schemas']['WorkflowExecution'];

/** The executions table's columns; an execution's id selects (and unselects) it. */
function executionColumns(selected: string | null, onSelect: (id: string) => void): Column<Execution>[] {
  return [
    {
      header: 'Execution',
      cell: (e) => (
        <UnstyledButton
          onClick={() => onSelect(e.id)}
          aria-pressed={e.id === selected}
          style={{
            textDecoration: 'underline',
            color: 'var(--mantine-color-anchor)',
            fontFamily: 'monospace',
          }}
        >
          {e.id}
        </UnstyledButton>
      ),
    },
    { header: 'Status', cell: (e) => <StatusBadge status={e.status} /> },
    { header: 'Started', cell: (e) => formatTime(e.startedAt) },
    { header: 'Duration', cell: (e) => (e.durationMs !== null ? `${e.durationMs} ms` : '—') },
    {
      header: 'Session',
      cell: (e) =>
        e.sessionId ? (
          <Anchor component={Link} to={`/sessions/${e.sessionId}`}>
            {e.sessionId}
          </Anchor>
        ) : (
          '—'
        ),
    },
  ];
}

/** A workflow's executions, the selected one highlighted. */
export function ExecutionList(props: {
  executions: readonly Execution[] | undefined;
  pending: boolean;
  error: unknown;
  selected: string | null;
  onSelect(id: string): void;
}) {
  const columns = executionColumns(props.selected, props.onSelect);
  return (
    <ListBody items={props.executions} pending={props.pending} error={props.error} empty="No executions yet.">
      {(rows) => (
        <DataTable
          label="Executions"
          minWidth={600}
          highlightOnHover
          rows={rows}
          columns={columns}
          rowKey={(e) => e.id}
          rowProps={(e) => ({ bg: e.id === props.selected ? 'var(--mantine-color-indigo-0)' : undefined })}
        />
      )}
    </ListBody>
  );
}

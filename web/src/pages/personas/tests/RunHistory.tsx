import { Button, Text } from '@mantine/core';
import { DataTable } from '../../../components/DataTable';
import { Empty, formatTime, StatusBadge } from '../../../components/ui';
import { runTarget } from './RunResults';
import type { TestRunSummary } from './useAgentTests';

/** The persona's past runs, newest first; a run's button shows its results. */
export function RunHistory(props: {
  runs: TestRunSummary[];
  selected: string | null;
  onSelect(runId: string): void;
}) {
  if (!props.runs.length) return <Empty>No run yet: run the tests to see their results here.</Empty>;
  return (
    <DataTable<TestRunSummary>
      label="Test runs"
      rows={props.runs}
      rowKey={(r) => r.id}
      rowProps={(r) => ({
        'data-testid': 'run-row',
        bg: r.id === props.selected ? 'var(--mantine-color-blue-light)' : undefined,
      })}
      minWidth={640}
      columns={[
        {
          header: 'Run',
          cell: (r) => (
            <Button
              variant="subtle"
              size="compact-sm"
              onClick={() => props.onSelect(r.id)}
              aria-pressed={r.id === props.selected}
            >
              {r.id}
            </Button>
          ),
        },
        { header: 'Status', cell: (r) => <StatusBadge status={r.status} /> },
        {
          header: 'Passed / failed',
          cell: (r) => (
            <Text size="sm">
              {r.passed} / {r.failed} of {r.total}
            </Text>
          ),
        },
        { header: 'Ran', cell: runTarget },
        { header: 'Started', cell: (r) => formatTime(r.createdAt) },
      ]}
    />
  );
}

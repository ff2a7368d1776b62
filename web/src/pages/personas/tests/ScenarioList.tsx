import { Button, Group, VisuallyHidden } from '@mantine/core';
import { DataTable } from '../../../components/DataTable';
import { Empty } from '../../../components/ui';
import type { Scenario } from './useAgentTests';

const plural = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`;

/** How the scenario's caller speaks: scripted turns, or a simulated caller and its turn limit. */
function callerText(s: Scenario): string {
  if (s.simulatedCaller) return `simulated caller, at most ${plural(s.simulatedCaller.maxTurns, 'turn')}`;
  return plural(s.turns?.length ?? 0, 'scripted turn');
}

/** Every expectation: the conversation's and each turn's. */
const expectationCount = (s: Scenario) =>
  s.expectations.length + (s.turns ?? []).reduce((n, t) => n + (t.expect?.length ?? 0), 0);

/** The persona's scenarios, each with its run, edit and delete buttons. */
export function ScenarioList(props: {
  scenarios: Scenario[];
  onRun(s: Scenario): void;
  running: boolean;
  onEdit(s: Scenario): void;
  onDelete(s: Scenario): void;
}) {
  if (!props.scenarios.length) {
    return <Empty>No scenario yet: add one to say what a caller says and what the agent must do.</Empty>;
  }
  return (
    <DataTable<Scenario>
      label="Test scenarios"
      rows={props.scenarios}
      rowKey={(s) => s.id}
      rowProps={(s) => ({ 'data-testid': `scenario-${s.id}` })}
      minWidth={640}
      columns={[
        { header: 'Name', cell: (s) => s.name, style: { overflowWrap: 'anywhere' } },
        { header: 'Caller', cell: callerText },
        { header: 'Expectations', cell: (s) => expectationCount(s) },
        { header: 'Mocks', cell: (s) => Object.keys(s.mocks).length },
        {
          header: <VisuallyHidden>Actions</VisuallyHidden>,
          cell: (s) => (
            <Group gap={4} wrap="nowrap" justify="flex-end">
              <Button
                size="compact-sm"
                variant="default"
                onClick={() => props.onRun(s)}
                disabled={props.running}
              >
                Run<VisuallyHidden> {s.name}</VisuallyHidden>
              </Button>
              <Button size="compact-sm" variant="default" onClick={() => props.onEdit(s)}>
                Edit<VisuallyHidden> {s.name}</VisuallyHidden>
              </Button>
              <Button size="compact-sm" variant="subtle" color="red.8" onClick={() => props.onDelete(s)}>
                Delete<VisuallyHidden> {s.name}</VisuallyHidden>
              </Button>
            </Group>
          ),
        },
      ]}
    />
  );
}

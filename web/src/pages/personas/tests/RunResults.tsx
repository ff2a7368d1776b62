import { Accordion, Button, Group, Loader, Paper, Stack, Text, Title } from '@mantine/core';
import { ErrorAlert, formatTime, StatusBadge } from '../../../components/ui';
import { ScenarioResultView } from './ScenarioResultView';
import type { TestRun } from './useAgentTests';

/** What a run ran: the draft as it was, or a frozen version. */
export const runTarget = (run: { personaVersion: number | null }) =>
  run.personaVersion === null ? 'draft' : `version ${run.personaVersion}`;

/** The run's totals, and how long it took once ended. */
function RunSummaryLine({ run }: { run: TestRun }) {
  const took =
    run.completedAt === null
      ? null
      : Math.max(0, Math.round((Date.parse(run.completedAt) - Date.parse(run.createdAt)) / 1000));
  return (
    <Text size="sm" data-testid="run-summary">
      {run.passed} passed · {run.failed} failed · {run.total} scenario{run.total === 1 ? '' : 's'} · the{' '}
      {runTarget(run)} · started {formatTime(run.createdAt)}
      {took === null ? '' : ` · took ${took} s`}
    </Text>
  );
}

/**
 * A run (followed while it runs): its status, totals and, per scenario, pass/fail with every
 * expectation's verdict and reason, the transcript and the latencies. A running run can be cancelled.
 */
export function RunResults(props: {
  run: TestRun;
  error: unknown;
  onCancel(): void;
  cancelling: boolean;
  cancelError: unknown;
}) {
  const { run } = props;
  const running = run.status === 'running';
  return (
    <Paper withBorder p="md" data-testid="run" aria-label={`Test run ${run.id}`} component="section">
      <Stack gap="sm">
        <Group justify="space-between">
          <Group gap="xs">
            <Title order={3} size="h5" style={{ overflowWrap: 'anywhere' }}>
              Run {run.id}
            </Title>
            <StatusBadge status={run.status} />
            {running ? <Loader size="xs" aria-label="Running" /> : null}
          </Group>
          {running ? (
            <Button
              variant="outline"
              color="red.8"
              size="xs"
              onClick={props.onCancel}
              loading={props.cancelling}
            >
              Cancel run
            </Button>
          ) : null}
        </Group>
        <div aria-live="polite">
          <RunSummaryLine run={run} />
        </div>
        <ErrorAlert error={props.cancelError} title="The run was not cancelled" />
        <ErrorAlert error={props.error} title="The run did not load" />
        <Accordion multiple variant="separated" chevronPosition="left">
          {run.scenarios.map((result) => (
            <Accordion.Item key={result.scenarioId} value={result.scenarioId} data-testid="scenario-result">
              <Accordion.Control>
                <Group gap="xs">
                  <StatusBadge status={result.status} />
                  <Text size="sm">{result.name}</Text>
                </Group>
              </Accordion.Control>
              <Accordion.Panel>
                {result.status === 'pending' ? (
                  <Text size="sm">Not finished yet.</Text>
                ) : (
                  <ScenarioResultView result={result} />
                )}
              </Accordion.Panel>
            </Accordion.Item>
          ))}
        </Accordion>
      </Stack>
    </Paper>
  );
}

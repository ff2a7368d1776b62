import { Button, Group, Stack, Text, Title } from '@mantine/core';
import { useState } from 'react';
import { ConfirmDialog } from '../../../components/ConfirmDialog';
import { ErrorAlert, PageLoader } from '../../../components/ui';
import { RequirePassingTestsSwitch } from '../RequirePassingTestsSwitch';
import { RunHistory } from './RunHistory';
import { RunResults } from './RunResults';
import { ScenarioEditor } from './ScenarioEditor';
import { ScenarioList } from './ScenarioList';
import { type Scenario, useScenarios, useTestRun, useTestRuns } from './useAgentTests';

/** The scenarios: the list, a button running them all, the editor and the delete confirmation. */
function Scenarios(props: { personaId: string; runs: ReturnType<typeof useTestRuns> }) {
  const { scenarios, save, remove } = useScenarios(props.personaId);
  const [editing, setEditing] = useState<{ scenario: Scenario | null } | null>(null);
  const [deleting, setDeleting] = useState<Scenario | null>(null);
  const { start } = props.runs;
  const list = scenarios.data ?? [];
  return (
    <Stack gap="sm">
      <Group justify="space-between">
        <Title order={2} size="h4">
          Scenarios
        </Title>
        <Group gap="xs">
          <Button variant="default" onClick={() => setEditing({ scenario: null })}>
            New scenario
          </Button>
          <Button onClick={() => start.mutate(null)} loading={start.isPending} disabled={!list.length}>
            Run tests
          </Button>
        </Group>
      </Group>
      <ErrorAlert error={scenarios.error} title="The scenarios did not load" />
      <ErrorAlert error={start.error} title="The run did not start" />
      {scenarios.isPending ? (
        <PageLoader />
      ) : (
        <ScenarioList
          scenarios={list}
          running={start.isPending}
          onRun={(s) => start.mutate([s.id])}
          onEdit={(s) => setEditing({ scenario: s })}
          onDelete={setDeleting}
        />
      )}
      <ScenarioEditor
        opened={editing !== null}
        scenario={editing?.scenario ?? null}
        save={save}
        onClose={() => setEditing(null)}
      />
      <ConfirmDialog
        opened={deleting !== null}
        title="Delete this scenario?"
        confirmLabel="Delete scenario"
        action={() => remove(deleting?.id ?? '')}
        onClose={() => setDeleting(null)}
        onDone={() => setDeleting(null)}
      >
        “{deleting?.name}” is deleted; runs that already ran it keep its results.
      </ConfirmDialog>
    </Stack>
  );
}

/** The selected run (the newest unless one was picked) and the history of runs. */
function Runs(props: {
  personaId: string;
  runs: ReturnType<typeof useTestRuns>;
  picked: string | null;
  pick(id: string): void;
}) {
  const { runs, cancel } = props.runs;
  const selected = props.picked ?? runs.data?.[0]?.id ?? null;
  const run = useTestRun(props.personaId, selected);
  return (
    <Stack gap="sm">
      {run.data ? (
        <RunResults
          run={run.data}
          error={run.error}
          onCancel={() => cancel.mutate(run.data.id)}
          cancelling={cancel.isPending}
          cancelError={cancel.error}
        />
      ) : null}
      <Title order={2} size="h4">
        Run history
      </Title>
      <ErrorAlert error={runs.error} title="The runs did not load" />
      {runs.data ? <RunHistory runs={runs.data} selected={selected} onSelect={props.pick} /> : null}
    </Stack>
  );
}

/**
 * The persona page's Tests tab (docs/personas.md "Testing an agent"): the account's switch gating
 * review submissions on passing tests; the persona's scenarios (written, edited, deleted here);
 * running them all or one, the run followed live with each scenario's verdicts, transcript and
 * latencies; and the history of runs.
 */
export function TestsTab(props: { personaId: string }) {
  const [picked, setPicked] = useState<string | null>(null);
  const runs = useTestRuns(props.personaId, (run) => setPicked(run.id));
  return (
    <Stack gap="lg">
      <RequirePassingTestsSwitch />
      <Text size="sm" c="dimmed">
        Each run drives real sessions of this persona in the test environment; mocked tools are never called.
      </Text>
      <Scenarios personaId={props.personaId} runs={runs} />
      <Runs personaId={props.personaId} runs={runs} picked={picked} pick={setPicked} />
    </Stack>
  );
}

import { Alert, Button, Group, List, Modal, Select, Stack, TextInput } from '@mantine/core';
import { type ReactNode, useEffect, useRef, useState } from 'react';
import { ApiCallError, errorText } from '../../../api/client';
import { CallerFields, errorOf, JsonField } from './ScenarioFields';
import {
  appendTo,
  bodyOf,
  draftOf,
  EMPTY_DRAFT,
  EXPECTATION_TEMPLATES,
  placeProblems,
  type ScenarioDraft,
} from './scenarioDraft';
import type { Scenario, useScenarios } from './useAgentTests';

type Save = ReturnType<typeof useScenarios>['save'];

/** Why the scenario was not saved: every problem line, and the message when no line names a field. */
function Refusal(props: { message: string; lines: string[] }) {
  const box = useRef<HTMLDivElement>(null);
  // the dialog may be scrolled down to its Save button: bring the list into view
  useEffect(() => {
    // (newer browsers answer a promise: not returned, or React would take it for a cleanup)
    box.current?.scrollIntoView({ block: 'nearest' });
  }, []);
  return (
    <Alert
      ref={box}
      color="red"
      title="The scenario was not saved"
      role="alert"
      data-testid="scenario-problems"
    >
      {props.lines.length ? (
        <List size="sm">
          {props.lines.map((line) => (
            <List.Item key={line}>{line}</List.Item>
          ))}
        </List>
      ) : (
        props.message
      )}
    </Alert>
  );
}

/** The conversation's expectations as JSON, with a menu adding a template of each kind. */
function ExpectationsField(props: { value: string; onChange(value: string): void; error: ReactNode }) {
  return (
    <Stack gap={4}>
      <JsonField
        label="Conversation expectations (JSON)"
        description="Checked over the whole conversation: an array of toolCalled, toolNotCalled, route, replyContains, replyMatches, refused, maxLatencyMs and judge."
        value={props.value}
        onChange={props.onChange}
        error={props.error}
      />
      <Select
        aria-label="Add an expectation"
        placeholder="Add an expectation…"
        data={Object.keys(EXPECTATION_TEMPLATES)}
        value={null}
        onChange={(kind) => kind && props.onChange(appendTo(props.value, EXPECTATION_TEMPLATES[kind]))}
        size="xs"
        w={220}
      />
    </Stack>
  );
}

/** The editor's draft (filled when the dialog opens), its save, and why the last save was refused. */
function useScenarioDraft(props: {
  scenario: Scenario | null;
  opened: boolean;
  save: Save;
  onClose(): void;
}) {
  const [draft, setDraft] = useState<ScenarioDraft>(EMPTY_DRAFT);
  const [refusal, setRefusal] = useState<{ message: string; lines: string[] } | null>(null);
  /** Each save's problems are a new list, brought into view. */
  const [attempt, setAttempt] = useState(0);
  useEffect(() => {
    if (!props.opened) return;
    setDraft(props.scenario ? draftOf(props.scenario) : EMPTY_DRAFT);
    setRefusal(null);
  }, [props.opened, props.scenario]);
  const set = <K extends keyof ScenarioDraft>(key: K, value: ScenarioDraft[K]) =>
    setDraft((d) => ({ ...d, [key]: value }));
  const submit = () => {
    setAttempt((n) => n + 1);
    const built = bodyOf(draft);
    if ('problems' in built) {
      setRefusal({ message: 'Fix the JSON first', lines: built.problems });
      return;
    }
    setRefusal(null);
    props.save.mutate(
      { id: props.scenario?.id ?? null, body: built.body },
      {
        onSuccess: props.onClose,
        onError: (error) =>
          setRefusal({
            message: errorText(error),
            lines: error instanceof ApiCallError ? error.validationErrors : [],
          }),
      },
    );
  };
  return { draft, set, refusal, attempt, submit };
}

/**
 * A scenario's editor (a dialog): its name, a scripted caller's turns or a simulated caller, the
 * mocks and the expectations. JSON fields are checked before sending; the API's 400 names the
 * fields, and each problem is shown on its field and listed above.
 */
export function ScenarioEditor(props: {
  /** The scenario edited; null: a new one. */
  scenario: Scenario | null;
  opened: boolean;
  save: Save;
  onClose(): void;
}) {
  const { draft, set, refusal, attempt, submit } = useScenarioDraft(props);
  const problems = placeProblems(refusal?.lines ?? []);
  return (
    <Modal
      opened={props.opened}
      onClose={props.onClose}
      title={props.scenario ? `Edit scenario: ${props.scenario.name}` : 'New scenario'}
      size="xl"
    >
      <Stack gap="md">
        {refusal ? <Refusal key={attempt} {...refusal} /> : null}
        <TextInput
          label="Name"
          value={draft.name}
          onChange={(e) => set('name', e.currentTarget.value)}
          error={errorOf(problems, 'name')}
          data-autofocus
        />
        <CallerFields draft={draft} set={set} problems={problems} />
        <JsonField
          label="Mocks (JSON)"
          description="Tool name → the result it answers in the test: a mocked tool is never called."
          value={draft.mocks}
          onChange={(v) => set('mocks', v)}
          error={errorOf(problems, 'mocks')}
          placeholder='{ "orders__lookup_order": { "status": "shipped" } }'
        />
        <ExpectationsField
          value={draft.expectations}
          onChange={(v) => set('expectations', v)}
          error={errorOf(problems, 'expectations')}
        />
        <Group justify="flex-end">
          <Button variant="default" onClick={props.onClose}>
            Cancel
          </Button>
          <Button onClick={submit} loading={props.save.isPending}>
            Save scenario
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}

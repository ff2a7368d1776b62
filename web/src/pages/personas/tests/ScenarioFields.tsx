import { Button, Group, NumberInput, Paper, SegmentedControl, Stack, Text, Textarea } from '@mantine/core';
import type { ReactNode } from 'react';
import type { PlacedProblems, ScenarioDraft } from './scenarioDraft';

const MONOSPACE = { input: { fontFamily: 'var(--mantine-font-family-monospace)', fontSize: 13 } };

/** A field's problems as its error (one line each), or nothing. */
export function errorOf(problems: PlacedProblems, field: string): ReactNode {
  const lines = problems.get(field);
  if (!lines?.length) return undefined;
  return lines.map((line) => <div key={line}>{line}</div>);
}

/** A JSON value edited as text (monospace), its problems under it. */
export function JsonField(props: {
  label: string;
  description: ReactNode;
  value: string;
  onChange(value: string): void;
  error: ReactNode;
  placeholder?: string;
}) {
  return (
    <Textarea
      label={props.label}
      description={props.description}
      value={props.value}
      onChange={(e) => props.onChange(e.currentTarget.value)}
      error={props.error}
      placeholder={props.placeholder}
      autosize
      minRows={3}
      maxRows={16}
      spellCheck={false}
      styles={MONOSPACE}
    />
  );
}

type Set = <K extends keyof ScenarioDraft>(key: K, value: ScenarioDraft[K]) => void;

/** Scripted turns: what the caller says at each turn, and that turn's expectations (JSON, optional). */
export function ScriptedTurns(props: { draft: ScenarioDraft; set: Set; problems: PlacedProblems }) {
  const { turns } = props.draft;
  const setTurn = (index: number, change: Partial<ScenarioDraft['turns'][number]>) =>
    props.set(
      'turns',
      turns.map((t, i) => (i === index ? { ...t, ...change } : t)),
    );
  return (
    <Stack gap="sm">
      {turns.map((turn, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: turns are identified by their position
        <Paper key={i} withBorder p="sm" data-testid={`turn-${i + 1}`}>
          <Stack gap="xs">
            <Textarea
              label={`Turn ${i + 1}: the caller says`}
              value={turn.text}
              onChange={(e) => setTurn(i, { text: e.currentTarget.value })}
              error={errorOf(props.problems, `turn.${i}`)}
              autosize
              minRows={1}
            />
            <JsonField
              label={`Turn ${i + 1} expectations (JSON)`}
              description="Optional: an array of expectations checked on this turn's reply (no judge here)."
              value={turn.expect}
              onChange={(value) => setTurn(i, { expect: value })}
              error={errorOf(props.problems, `expect.${i}`)}
              placeholder='[{ "type": "replyContains", "text": "order" }]'
            />
            {turns.length > 1 ? (
              <Group justify="flex-end">
                <Button
                  variant="subtle"
                  color="red.8"
                  size="xs"
                  onClick={() =>
                    props.set(
                      'turns',
                      turns.filter((_, j) => j !== i),
                    )
                  }
                >
                  Remove turn {i + 1}
                </Button>
              </Group>
            ) : null}
          </Stack>
        </Paper>
      ))}
      <Group>
        <Button
          variant="default"
          size="xs"
          onClick={() => props.set('turns', [...turns, { text: '', expect: '' }])}
        >
          Add a turn
        </Button>
      </Group>
    </Stack>
  );
}

/** A simulated caller: the goal a model pursues as the caller, in at most `maxTurns` turns. */
export function SimulatedCaller(props: { draft: ScenarioDraft; set: Set; problems: PlacedProblems }) {
  return (
    <Stack gap="sm">
      <Textarea
        label="Caller's goal"
        description="A model plays the caller, pursuing this goal."
        value={props.draft.goal}
        onChange={(e) => props.set('goal', e.currentTarget.value)}
        error={errorOf(props.problems, 'goal')}
        autosize
        minRows={2}
      />
      <NumberInput
        label="Max turns"
        description="At most 10."
        min={1}
        max={10}
        value={props.draft.maxTurns}
        onChange={(v) => props.set('maxTurns', typeof v === 'number' ? v : Number(v) || 0)}
        error={errorOf(props.problems, 'maxTurns')}
      />
    </Stack>
  );
}

/** Who calls: scripted turns or a simulated caller (a choice), and the fields of the one chosen. */
export function CallerFields(props: { draft: ScenarioDraft; set: Set; problems: PlacedProblems }) {
  const { draft, set, problems } = props;
  return (
    <>
      <Stack gap={4}>
        <Text size="sm" fw={500} id="caller-label">
          Caller
        </Text>
        <SegmentedControl
          aria-labelledby="caller-label"
          value={draft.caller}
          onChange={(v) => set('caller', v as ScenarioDraft['caller'])}
          data={[
            { value: 'scripted', label: 'Scripted turns' },
            { value: 'simulated', label: 'Simulated caller' },
          ]}
        />
        {problems.get('caller')?.map((line) => (
          <Text key={line} size="xs" c="red.8">
            {line}
          </Text>
        ))}
      </Stack>
      {draft.caller === 'scripted' ? (
        <ScriptedTurns draft={draft} set={set} problems={problems} />
      ) : (
        <SimulatedCaller draft={draft} set={set} problems={problems} />
      )}
    </>
  );
}

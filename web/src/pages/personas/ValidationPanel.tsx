import { Alert, List, Stack, Text, Title } from '@mantine/core';
import type { components } from '../../api/schema';
import { ErrorAlert } from '../../components/ui';
import type { EditorState } from './useManifestEditor';

type Validation = components['schemas']['PersonaValidation'];

const count = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`;

function Problems({ items }: { items: string[] }) {
  return (
    <List size="sm">
      {items.map((item) => (
        <List.Item key={item}>{item}</List.Item>
      ))}
    </List>
  );
}

/** Why the editor's text was not saved: it does not parse, or the API refused it. */
function EditorProblem({ editor }: { editor: EditorState }) {
  if (editor.kind === 'invalid-json') {
    return (
      <Alert color="red" title="The JSON does not parse">
        {editor.message}
      </Alert>
    );
  }
  if (editor.kind !== 'refused') return null;
  return (
    <Alert color="red" title="The manifest was refused">
      {editor.problems.length ? <Problems items={editor.problems} /> : editor.message}
    </Alert>
  );
}

/** The submission rules' verdict on the saved manifest: ready, or its errors; and its warnings. */
function Verdict({ validation }: { validation: Validation }) {
  return (
    <>
      {validation.valid ? (
        <Alert color="green" title="Ready to submit">
          Every submission rule passes.
        </Alert>
      ) : (
        <Alert color="red" title={count(validation.errors.length, 'error')}>
          <Problems items={validation.errors} />
        </Alert>
      )}
      {validation.warnings.length ? (
        <Alert color="yellow" title={count(validation.warnings.length, 'warning')}>
          <Problems items={validation.warnings} />
        </Alert>
      ) : null}
    </>
  );
}

/** Beside the editor: what is wrong with its text, or what the submission rules say about the saved draft. */
export function ValidationPanel(props: {
  editor: EditorState;
  validation: Validation | undefined;
  pending: boolean;
  error: unknown;
}) {
  return (
    <Stack gap="sm" aria-live="polite" data-testid="validation">
      <Title order={2} size="h4">
        Validation
      </Title>
      <EditorProblem editor={props.editor} />
      <ErrorAlert error={props.error} />
      {props.validation ? (
        <Verdict validation={props.validation} />
      ) : props.pending ? (
        <Text size="sm">Checking…</Text>
      ) : null}
    </Stack>
  );
}

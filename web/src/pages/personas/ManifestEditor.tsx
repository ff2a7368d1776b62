import { Text, Textarea } from '@mantine/core';
import type { EditorState } from './useManifestEditor';

const SAVE_STATE: Record<EditorState['kind'], string> = {
  idle: '',
  saving: 'Saving…',
  saved: 'Saved',
  'invalid-json': 'Not saved: fix the JSON',
  refused: 'Not saved',
};

/** The manifest's JSON in a monospace text area, and whether what is in it is saved. */
export function ManifestEditor(props: {
  text: string;
  editor: EditorState;
  onEdit(value: string): void;
  /** Why it cannot be edited; null when it can. */
  readOnlyReason: string | null;
}) {
  return (
    <>
      <Textarea
        label="Manifest (JSON)"
        description={
          props.readOnlyReason ?? 'Saved as you type; validated against the submission rules after each save.'
        }
        value={props.text}
        onChange={(e) => props.onEdit(e.currentTarget.value)}
        readOnly={props.readOnlyReason !== null}
        autosize
        minRows={18}
        maxRows={40}
        spellCheck={false}
        styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)', fontSize: 13 } }}
      />
      <Text size="sm" mt={4} aria-live="polite" data-testid="save-state">
        {SAVE_STATE[props.editor.kind]}
      </Text>
    </>
  );
}

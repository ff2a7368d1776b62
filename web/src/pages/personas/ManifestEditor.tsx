import { Textarea } from '@mantine/core';

/** The manifest's JSON in a monospace text area (the persona page's JSON tab). */
export function ManifestEditor(props: {
  text: string;
  onEdit(value: string): void;
  /** Why it cannot be edited; null when it can. */
  readOnlyReason: string | null;
}) {
  return (
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
  );
}

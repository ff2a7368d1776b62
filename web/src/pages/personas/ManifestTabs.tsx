import { Group, Tabs, Text } from '@mantine/core';
import { useState } from 'react';
import { placeProblems } from './form/fieldErrors';
import { PersonaForm } from './form/PersonaForm';
import { ManifestEditor } from './ManifestEditor';
import type { EditorState, useManifestEditor } from './useManifestEditor';

type ManifestEditing = ReturnType<typeof useManifestEditor>;

const SAVE_STATE: Record<EditorState['kind'], string> = {
  idle: '',
  saving: 'Saving…',
  saved: 'Saved',
  'invalid-json': 'Not saved: fix the JSON',
  refused: 'Not saved',
};

/**
 * The draft in two tabs that edit the same draft: a form (first) and the JSON. The problems on the
 * form's fields are the refused save's, else the submission rules' errors on the saved draft.
 */
export function ManifestTabs(props: {
  manifest: ManifestEditing;
  /** The validation endpoint's errors on the saved draft, when it is what the editor shows. */
  ruleErrors: string[];
  readOnlyReason: string | null;
}) {
  const [tab, setTab] = useState<string | null>('form');
  const { manifest } = props;
  const { editor } = manifest;
  const problems = editor.kind === 'refused' ? editor.problems : props.ruleErrors;
  // a field's problems show once it was left, and every field's once the draft was saved from here
  const [touched, setTouched] = useState<ReadonlySet<string>>(new Set());
  const [saved, setSaved] = useState(false);
  if (!saved && editor.kind !== 'idle') setSaved(true);
  const touch = (path: string) => {
    if (!touched.has(path)) setTouched(new Set(touched).add(path));
  };
  return (
    <Tabs value={tab} onChange={setTab} keepMounted={false}>
      <Group justify="space-between" mb="md" gap="xs">
        <Tabs.List>
          <Tabs.Tab value="form">Form</Tabs.Tab>
          <Tabs.Tab value="json">JSON</Tabs.Tab>
        </Tabs.List>
        <Text size="sm" aria-live="polite" data-testid="save-state">
          {SAVE_STATE[editor.kind]}
        </Text>
      </Group>
      <Tabs.Panel value="form">
        <PersonaForm
          draft={manifest.draft}
          set={manifest.onFieldChange}
          problems={placeProblems(problems).byField}
          shown={saved ? 'all' : touched}
          touch={touch}
          disabled={props.readOnlyReason !== null}
          readOnlyReason={props.readOnlyReason}
          jsonBroken={editor.kind === 'invalid-json'}
        />
      </Tabs.Panel>
      <Tabs.Panel value="json">
        <ManifestEditor text={manifest.text} onEdit={manifest.onEdit} readOnlyReason={props.readOnlyReason} />
      </Tabs.Panel>
    </Tabs>
  );
}

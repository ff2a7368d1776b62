import { useDebouncedCallback } from '@mantine/hooks';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { ApiCallError, api, errorText, unwrap } from '../../api/client';
import type { components } from '../../api/schema';

type Persona = components['schemas']['Persona'];
type Manifest = Persona['manifest'];

/** What the editor says about the text in it: a JSON or shape problem, the save, then the rules. */
export type EditorState =
  | { kind: 'idle' }
  | { kind: 'invalid-json'; message: string }
  | { kind: 'saving' }
  | { kind: 'refused'; problems: string[]; message: string }
  | { kind: 'saved'; at: number };

/** The editor's text as a manifest, or why it is not one. */
function parseManifest(value: string): { manifest: Manifest } | { problem: string } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch (e) {
    return { problem: (e as Error).message };
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    return { problem: 'The manifest must be a JSON object' };
  }
  return { manifest: parsed as Manifest };
}

/**
 * A persona's manifest as JSON text that saves the draft as you type (after a pause). The text is
 * filled from the server once, and again after reload() (when the persona changed elsewhere), never
 * while typing.
 */
export function useManifestEditor(id: string, persona: Persona | undefined) {
  const queryClient = useQueryClient();
  const [text, setText] = useState('');
  const [editor, setEditor] = useState<EditorState>({ kind: 'idle' });
  const loadedVersion = useRef<number | null>(null);
  useEffect(() => {
    if (persona && loadedVersion.current === null) {
      loadedVersion.current = persona.version;
      setText(JSON.stringify(persona.manifest, null, 2));
    }
  }, [persona]);

  const save = useMutation({
    mutationFn: async (manifest: Manifest) =>
      unwrap(
        await api.PUT('/api/v1/developers/personas/{id}', { params: { path: { id } }, body: { manifest } }),
      ).persona,
    onMutate: () => setEditor({ kind: 'saving' }),
    onSuccess: (saved) => {
      loadedVersion.current = saved.version;
      queryClient.setQueryData(['persona', id], saved);
      setEditor({ kind: 'saved', at: Date.now() });
    },
    onError: (error) =>
      setEditor({
        kind: 'refused',
        message: errorText(error),
        problems: error instanceof ApiCallError ? error.validationErrors : [],
      }),
  });
  const saveLater = useDebouncedCallback((manifest: Manifest) => save.mutate(manifest), 600);

  const onEdit = (value: string) => {
    setText(value);
    const parsed = parseManifest(value);
    if ('problem' in parsed) {
      setEditor({ kind: 'invalid-json', message: parsed.problem });
      return;
    }
    setEditor({ kind: 'saving' });
    saveLater(parsed.manifest);
  };
  const reload = () => {
    loadedVersion.current = null;
  };
  return { text, editor, busy: editor.kind === 'saving' || save.isPending, onEdit, reload };
}

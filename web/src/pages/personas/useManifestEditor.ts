import { useDebouncedCallback } from '@mantine/hooks';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { ApiCallError, api, errorText, unwrap } from '../../api/client';
import type { components } from '../../api/schema';
import { clearStoredDraft, readStoredDraft, writeStoredDraft } from './draftStore';
import { type Draft, setIn } from './form/manifestPaths';

type Persona = components['schemas']['Persona'];
type Manifest = Persona['manifest'];

/** The statuses whose manifest can be edited. */
export const EDITABLE_STATUSES = ['draft', 'rejected'];

/** What the editor says about the draft: a JSON or shape problem, the save, then the rules. */
export type EditorState =
  | { kind: 'idle' }
  | { kind: 'invalid-json'; message: string }
  | { kind: 'saving' }
  | { kind: 'refused'; problems: string[]; message: string }
  | { kind: 'saved'; at: number };

/** The editor's text as a manifest, or why it is not one. */
function parseManifest(value: string): { manifest: Draft } | { problem: string } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch (e) {
    return { problem: (e as Error).message };
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    return { problem: 'The manifest must be a JSON object' };
  }
  return { manifest: parsed as Draft };
}

const asText = (manifest: Draft) => JSON.stringify(manifest, null, 2);

/**
 * A persona's manifest draft, edited as JSON text or field by field (both change the same draft),
 * saved as you type (after a pause). The draft is filled from the server once, and again after
 * reload() (when the persona changed elsewhere), never while typing. Until the server accepts it,
 * the draft is also kept in localStorage (draftStore.ts): a reload brings it back and saves it again.
 */
export function useManifestEditor(id: string, persona: Persona | undefined) {
  const queryClient = useQueryClient();
  const [text, setText] = useState('');
  const [draft, setDraft] = useState<Draft>({});
  const [editor, setEditor] = useState<EditorState>({ kind: 'idle' });
  /** A stored draft not shown because the persona cannot be edited now. */
  const [heldBack, setHeldBack] = useState(false);
  const loadedVersion = useRef<number | null>(null);
  const latestText = useRef('');

  const save = useMutation({
    mutationFn: async ({ manifest }: { manifest: Draft; text: string }) =>
      unwrap(
        await api.PUT('/api/v1/developers/personas/{id}', {
          params: { path: { id } },
          body: { manifest: manifest as Manifest },
        }),
      ).persona,
    onMutate: () => setEditor({ kind: 'saving' }),
    onSuccess: (saved, sent) => {
      loadedVersion.current = saved.version;
      queryClient.setQueryData(['persona', id], saved);
      if (sent.text !== latestText.current) return; // a newer edit is on its way
      clearStoredDraft(id);
      setEditor({ kind: 'saved', at: Date.now() });
    },
    onError: (error, sent) => {
      if (sent.text !== latestText.current) return;
      setEditor({
        kind: 'refused',
        message: errorText(error),
        problems: error instanceof ApiCallError ? error.validationErrors : [],
      });
    },
  });
  const saveLater = useDebouncedCallback((manifest: Draft, sentText: string) => {
    save.mutate({ manifest, text: sentText });
  }, 600);

  /** Shows the text (and its draft, when it parses); returns the draft to save, or null. */
  const show = (value: string): Draft | null => {
    latestText.current = value;
    setText(value);
    const parsed = parseManifest(value);
    if ('problem' in parsed) {
      setEditor({ kind: 'invalid-json', message: parsed.problem });
      return null;
    }
    setDraft(parsed.manifest);
    return parsed.manifest;
  };

  const showServerVersion = (p: Persona) => {
    loadedVersion.current = p.version;
    show(asText(p.manifest as Draft));
    setEditor({ kind: 'idle' });
  };

  // fills once per (re)load (loadedVersion), not on every render
  // biome-ignore lint/correctness/useExhaustiveDependencies: the helpers it calls are remade each render
  useEffect(() => {
    if (!persona || loadedVersion.current !== null) return;
    const stored = readStoredDraft(id);
    showServerVersion(persona);
    if (!stored || stored.text === latestText.current) {
      if (stored) clearStoredDraft(id);
      return;
    }
    if (!EDITABLE_STATUSES.includes(persona.status)) {
      setHeldBack(true);
      return;
    }
    setHeldBack(false);
    const restored = show(stored.text);
    if (restored) save.mutate({ manifest: restored, text: stored.text });
  }, [persona, id]);

  const change = (value: string) => {
    writeStoredDraft(id, { text: value, version: loadedVersion.current ?? 0 });
    const manifest = show(value);
    if (!manifest) {
      saveLater.cancel();
      return;
    }
    setEditor({ kind: 'saving' });
    saveLater(manifest, value);
  };

  return {
    text,
    draft,
    editor,
    heldBack,
    busy: editor.kind === 'saving' || save.isPending,
    /** Edits are not on the server yet: being saved, refused, or not parsing. */
    unsaved: editor.kind === 'saving' || editor.kind === 'refused' || editor.kind === 'invalid-json',
    /** The JSON tab's edit. */
    onEdit: change,
    /** The form's edit of one field. */
    onFieldChange: (path: string, value: unknown) => change(asText(setIn(draft, path, value))),
    /** Saves the draft again (after a refusal or a failed network call). */
    retry: () => {
      const parsed = parseManifest(latestText.current);
      if ('manifest' in parsed) save.mutate({ manifest: parsed.manifest, text: latestText.current });
    },
    /** Forgets the draft this browser holds and shows the server's version again. */
    discard: () => {
      saveLater.cancel();
      clearStoredDraft(id);
      setHeldBack(false);
      const current = queryClient.getQueryData<Persona>(['persona', id]) ?? persona;
      if (current) showServerVersion(current);
    },
    reload: () => {
      loadedVersion.current = null;
    },
  };
}

import {
  Button,
  FileInput,
  Group,
  NumberInput,
  SegmentedControl,
  Stack,
  Textarea,
  TextInput,
} from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { api, unwrap } from '../../api/client';
import { ErrorAlert } from '../../components/ui';

type Kind = 'file' | 'url' | 'text';

/** What a new source sends: JSON for text and URLs, multipart/form-data with one `file` part for a file. */
async function createSource(
  baseId: string,
  kind: Kind,
  form: { name: string; text: string; url: string; depth: number; pages: number; file: File | null },
) {
  const path = { params: { path: { id: baseId } } };
  if (kind === 'file') {
    const body = new FormData();
    if (form.name.trim()) body.append('name', form.name.trim());
    body.append('file', form.file!, form.file!.name);
    // multipart: the fetch sets its own Content-Type with the boundary
    return unwrap(
      await api.POST('/api/v2/developers/knowledge-bases/{id}/sources', {
        ...path,
        body: {} as never,
        bodySerializer: () => body,
      }),
    ).data;
  }
  const body =
    kind === 'text'
      ? { type: 'text' as const, name: form.name.trim(), text: form.text }
      : {
          type: 'url' as const,
          url: form.url.trim(),
          ...(form.name.trim() ? { name: form.name.trim() } : {}),
          ...(form.depth > 0 ? { crawl: { maxDepth: form.depth, maxPages: form.pages } } : {}),
        };
  return unwrap(await api.POST('/api/v2/developers/knowledge-bases/{id}/sources', { ...path, body })).data;
}

/** Adds a source to a base: a file dropped or picked (up to 20 MB), a URL (optionally crawled), or text. */
export function AddSource({ baseId, onAdded }: { baseId: string; onAdded(): void }) {
  const [kind, setKind] = useState<Kind>('file');
  const [form, setForm] = useState({
    name: '',
    text: '',
    url: '',
    depth: 0,
    pages: 20,
    file: null as File | null,
  });
  const set = (patch: Partial<typeof form>) => setForm((f) => ({ ...f, ...patch }));
  const add = useMutation({
    mutationFn: () => createSource(baseId, kind, form),
    onSuccess: () => {
      setForm({ name: '', text: '', url: '', depth: 0, pages: 20, file: null });
      onAdded();
    },
  });
  const ready =
    kind === 'file'
      ? form.file !== null
      : kind === 'url'
        ? form.url.trim() !== ''
        : form.name.trim() !== '' && form.text.trim() !== '';
  return (
    <Stack gap="sm" data-testid="add-source">
      <SegmentedControl
        value={kind}
        onChange={(v) => setKind(v as Kind)}
        data={[
          { value: 'file', label: 'File' },
          { value: 'url', label: 'URL' },
          { value: 'text', label: 'Text' },
        ]}
      />
      <TextInput
        label={kind === 'text' ? 'Name' : 'Name (optional)'}
        value={form.name}
        onChange={(e) => set({ name: e.currentTarget.value })}
        maxLength={300}
      />
      {kind === 'file' && (
        <FileInput
          label="File"
          description="PDF, DOCX, HTML, Markdown or plain text; up to 20 MB"
          accept=".pdf,.docx,.html,.htm,.md,.markdown,.txt"
          value={form.file}
          onChange={(file) => set({ file })}
          clearable
        />
      )}
      {kind === 'url' && (
        <>
          <TextInput
            label="URL"
            placeholder="https://help.example.com/returns"
            value={form.url}
            onChange={(e) => set({ url: e.currentTarget.value })}
          />
          <Group grow>
            <NumberInput
              label="Follow links (depth)"
              description="0: this page only; up to 3"
              min={0}
              max={3}
              value={form.depth}
              onChange={(v) => set({ depth: Number(v) || 0 })}
            />
            <NumberInput
              label="At most pages"
              min={1}
              max={200}
              value={form.pages}
              onChange={(v) => set({ pages: Number(v) || 1 })}
              disabled={form.depth === 0}
            />
          </Group>
        </>
      )}
      {kind === 'text' && (
        <Textarea
          label="Text"
          description="Markdown headings become sections"
          autosize
          minRows={4}
          value={form.text}
          onChange={(e) => set({ text: e.currentTarget.value })}
        />
      )}
      {add.error && <ErrorAlert error={add.error} title="The source was not added" />}
      <Group>
        <Button onClick={() => add.mutate()} loading={add.isPending} disabled={!ready}>
          Add source
        </Button>
      </Group>
    </Stack>
  );
}

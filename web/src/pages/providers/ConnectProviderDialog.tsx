import {
  Button,
  Group,
  Modal,
  PasswordInput,
  SegmentedControl,
  Select,
  Stack,
  Text,
  TextInput,
} from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { type FormEvent, useEffect, useState } from 'react';
import { ApiCallError, api, unwrap } from '../../api/client';
import { ErrorAlert } from '../../components/ui';
import {
  KIND_LABELS,
  type PresetName,
  type ProviderApi,
  type ProviderKind,
  presetOptions,
  problemsOf,
} from './presets';

interface Form {
  name: string;
  kind: ProviderKind;
  where: 'preset' | 'url';
  preset: PresetName | null;
  baseUrl: string;
  api: ProviderApi;
  apiKey: string;
}

const EMPTY: Form = {
  name: '',
  kind: 'chat',
  where: 'preset',
  preset: 'openai',
  baseUrl: '',
  api: 'openai',
  apiKey: '',
};

/** The request body: a preset, or a base URL with the API it speaks. */
const bodyOf = (f: Form) => ({
  name: f.name,
  kind: f.kind,
  apiKey: f.apiKey,
  ...(f.where === 'preset'
    ? { preset: f.preset ?? undefined }
    : { baseUrl: f.baseUrl, api: f.kind === 'voice' ? f.api : 'openai' }),
});

/** "Connect a provider": name, kind, a hosted service or a base URL, and the key (never shown again). */
export function ConnectProviderDialog(props: { opened: boolean; onClose(): void; onSaved(): void }) {
  const [form, setForm] = useState<Form>(EMPTY);
  const set = (patch: Partial<Form>) => setForm((f) => ({ ...f, ...patch }));
  // biome-ignore lint/correctness/useExhaustiveDependencies: each opening starts empty
  useEffect(() => {
    if (!props.opened) return;
    setForm(EMPTY);
    save.reset();
  }, [props.opened]);
  const save = useMutation({
    mutationFn: async () => unwrap(await api.POST('/api/v2/developers/providers', { body: bodyOf(form) })),
    onSuccess: () => {
      setForm(EMPTY);
      props.onSaved();
    },
  });
  const refused = save.error instanceof ApiCallError ? save.error.validationErrors : [];
  const changeKind = (kind: ProviderKind) => {
    const presets = presetOptions(kind);
    const keep = presets.some((p) => p.value === form.preset);
    set({ kind, preset: keep ? form.preset : ((presets[0]?.value as PresetName) ?? null), api: 'openai' });
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate();
  };
  return (
    <Modal opened={props.opened} onClose={props.onClose} title="Connect a provider">
      <form onSubmit={submit}>
        <Stack>
          <TextInput
            label="Name"
            required
            placeholder="Our OpenAI account"
            description="Unique among your providers; personas show it"
            value={form.name}
            onChange={(e) => set({ name: e.currentTarget.value })}
            error={problemsOf(refused, 'name')}
            data-autofocus
          />
          <Select
            label="Kind"
            required
            allowDeselect={false}
            data={(Object.keys(KIND_LABELS) as ProviderKind[]).map((k) => ({
              value: k,
              label: KIND_LABELS[k],
            }))}
            value={form.kind}
            onChange={(v) => v && changeKind(v as ProviderKind)}
            description="Chat model: the agent's model; transcription: speech to text; voice: text to speech"
          />
          <WhereFields form={form} set={set} refused={refused} />
          <PasswordInput
            label="API key"
            required
            autoComplete="off"
            value={form.apiKey}
            onChange={(e) => set({ apiKey: e.currentTarget.value })}
            error={problemsOf(refused, 'apiKey')}
          />
          <Text size="xs" c="dimmed">
            The key is stored encrypted. It is never shown again, here or through the API; you can replace it.
          </Text>
          <ErrorAlert error={save.error} title="The provider was not connected" />
          <Group justify="flex-end">
            <Button variant="default" onClick={props.onClose}>
              Cancel
            </Button>
            <Button type="submit" loading={save.isPending}>
              Connect provider
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}

/** A hosted service by name (those serving the kind), or a base URL. */
function WhereFields(props: { form: Form; set(patch: Partial<Form>): void; refused: readonly string[] }) {
  const { form, set, refused } = props;
  return (
    <>
      <SegmentedControl
        aria-label="Where the provider is"
        value={form.where}
        onChange={(v) => set({ where: v as Form['where'] })}
        data={[
          { value: 'preset', label: 'A hosted service' },
          { value: 'url', label: 'A base URL' },
        ]}
      />
      {form.where === 'preset' ? (
        <Select
          label="Service"
          required
          allowDeselect={false}
          data={presetOptions(form.kind)}
          value={form.preset}
          onChange={(v) => set({ preset: v as PresetName | null })}
          error={problemsOf(refused, 'preset')}
        />
      ) : (
        <UrlFields form={form} set={set} refused={refused} />
      )}
    </>
  );
}

/** A base URL with its version, and (for voices) the API it speaks. */
function UrlFields(props: { form: Form; set(patch: Partial<Form>): void; refused: readonly string[] }) {
  const { form, set, refused } = props;
  return (
    <>
      <TextInput
        label="Base URL"
        required
        placeholder="https://llm.example.com/v1"
        description="With the API's version; a public http(s) address"
        value={form.baseUrl}
        onChange={(e) => set({ baseUrl: e.currentTarget.value })}
        error={problemsOf(refused, 'baseUrl')}
      />
      <Select
        label="API"
        required
        allowDeselect={false}
        description={
          form.kind === 'voice' ? 'The API it speaks' : 'Chat and transcription speak the OpenAI API'
        }
        data={[
          { value: 'openai', label: 'OpenAI-compatible' },
          { value: 'elevenlabs', label: 'ElevenLabs', disabled: form.kind !== 'voice' },
        ]}
        value={form.kind === 'voice' ? form.api : 'openai'}
        onChange={(v) => v && set({ api: v as ProviderApi })}
        disabled={form.kind !== 'voice'}
        error={problemsOf(refused, 'api')}
      />
    </>
  );
}

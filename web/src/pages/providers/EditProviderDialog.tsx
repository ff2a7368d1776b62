import { Button, Group, Modal, PasswordInput, Stack, Text, TextInput } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { type FormEvent, useEffect, useState } from 'react';
import { ApiCallError, api, unwrap } from '../../api/client';
import { ErrorAlert } from '../../components/ui';
import { type Provider, problemsOf, whereLabel } from './presets';

/**
 * "Edit PROVIDER": a new name, base URL (the preset is then dropped) or key; PATCH /providers/:id with
 * only what changed. The key field starts empty: the current key is never shown.
 */
export function EditProviderDialog(props: { provider: Provider | null; onClose(): void; onSaved(): void }) {
  const { provider } = props;
  const [name, setName] = useState('');
  const [baseUrl, setBaseUrl] = useState('');
  const [apiKey, setApiKey] = useState('');
  // biome-ignore lint/correctness/useExhaustiveDependencies: each opening starts from the provider
  useEffect(() => {
    if (!provider) return;
    setName(provider.name);
    setBaseUrl(provider.baseUrl);
    setApiKey('');
    save.reset();
  }, [provider]);
  const body = {
    ...(provider && name !== provider.name ? { name } : {}),
    ...(provider && baseUrl !== provider.baseUrl ? { baseUrl } : {}),
    ...(apiKey ? { apiKey } : {}),
  };
  const save = useMutation({
    mutationFn: async () =>
      unwrap(
        await api.PATCH('/api/v2/developers/providers/{id}', {
          params: { path: { id: provider?.id ?? '' } },
          body,
        }),
      ),
    onSuccess: () => {
      setApiKey('');
      props.onSaved();
    },
  });
  const refused = save.error instanceof ApiCallError ? save.error.validationErrors : [];
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate();
  };
  return (
    <Modal opened={provider !== null} onClose={props.onClose} title={`Edit ${provider?.name ?? 'provider'}`}>
      <form onSubmit={submit}>
        <Stack>
          <TextInput
            label="Name"
            required
            value={name}
            onChange={(e) => setName(e.currentTarget.value)}
            error={problemsOf(refused, 'name')}
            data-autofocus
          />
          <TextInput
            label="Base URL"
            required
            description={
              provider?.preset
                ? `Now ${whereLabel(provider)}'s; changing it makes this a base-URL provider`
                : "With the API's version; a public http(s) address"
            }
            value={baseUrl}
            onChange={(e) => setBaseUrl(e.currentTarget.value)}
            error={problemsOf(refused, 'baseUrl')}
          />
          <NewKeyField value={apiKey} onChange={setApiKey} error={problemsOf(refused, 'apiKey')} />
          <ErrorAlert error={save.error} title="The provider was not saved" />
          <Group justify="flex-end">
            <Button variant="default" onClick={props.onClose}>
              Cancel
            </Button>
            <Button type="submit" loading={save.isPending} disabled={Object.keys(body).length === 0}>
              Save changes
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}

/** The replacement key: empty keeps the current one, which is never shown. */
function NewKeyField(props: { value: string; onChange(value: string): void; error: string | undefined }) {
  return (
    <>
      <PasswordInput
        label="New API key"
        autoComplete="off"
        description="Leave empty to keep the current key; a new one is used from the next call"
        value={props.value}
        onChange={(e) => props.onChange(e.currentTarget.value)}
        error={props.error}
      />
      <Text size="xs" c="dimmed">
        The current key is never shown, and a new one is stored encrypted and never shown again.
      </Text>
    </>
  );
}

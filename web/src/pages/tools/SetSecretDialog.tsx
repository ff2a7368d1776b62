import { Button, Group, Modal, PasswordInput, Stack, Text, TextInput } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { type FormEvent, useEffect, useState } from 'react';
import { api, unwrap } from '../../api/client';
import { ErrorAlert } from '../../components/ui';

/**
 * "Set a secret" (a new name) or "Replace NAME" (a given name): PUT /secrets/:name with the value,
 * typed into a password field and forgotten by the page once saved.
 */
export function SetSecretDialog(props: { opened: boolean; name?: string; onClose(): void; onSaved(): void }) {
  const [name, setName] = useState('');
  const [value, setValue] = useState('');
  const replacing = props.name !== undefined;
  // biome-ignore lint/correctness/useExhaustiveDependencies: each opening starts empty
  useEffect(() => {
    if (!props.opened) return;
    setName(props.name ?? '');
    setValue('');
    save.reset();
  }, [props.opened, props.name]);
  const save = useMutation({
    mutationFn: async () =>
      unwrap(
        await api.PUT('/api/v2/developers/secrets/{name}', { params: { path: { name } }, body: { value } }),
      ),
    onSuccess: () => {
      setValue('');
      props.onSaved();
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate();
  };
  return (
    <Modal
      opened={props.opened}
      onClose={props.onClose}
      title={replacing ? `Replace ${props.name}` : 'Set a secret'}
    >
      <form onSubmit={submit}>
        <Stack>
          {replacing ? null : (
            <TextInput
              label="Name"
              required
              placeholder="CRM_TOKEN"
              description="Letters, digits and underscores; use it as {{secrets.NAME}}"
              value={name}
              onChange={(e) => setName(e.currentTarget.value)}
              data-autofocus
            />
          )}
          <PasswordInput
            label="Value"
            required
            autoComplete="off"
            value={value}
            onChange={(e) => setValue(e.currentTarget.value)}
            data-autofocus={replacing || undefined}
          />
          <Text size="xs" c="dimmed">
            Stored encrypted. It is never shown again, here or through the API.
          </Text>
          <ErrorAlert error={save.error} title="The secret was not saved" />
          <Group justify="flex-end">
            <Button variant="default" onClick={props.onClose}>
              Cancel
            </Button>
            <Button type="submit" loading={save.isPending}>
              {replacing ? 'Replace secret' : 'Save secret'}
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}

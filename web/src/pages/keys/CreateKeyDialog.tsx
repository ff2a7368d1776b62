import { Button, Group, Modal, NativeSelect, Stack, TextInput } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { api, unwrap } from '../../api/client';
import type { components } from '../../api/schema';
import { ErrorAlert } from '../../components/ui';

export type CreatedKey = components['schemas']['CreatedApiKey']['key'];

/** "Create an API key": a name and an environment; the new key (with its full secret) goes to onCreated. */
export function CreateKeyDialog(props: {
  opened: boolean;
  onClose(): void;
  onCreated(key: CreatedKey): void;
}) {
  const [name, setName] = useState('');
  const [environment, setEnvironment] = useState<'live' | 'test'>('live');
  const create = useMutation({
    mutationFn: async () =>
      unwrap(await api.POST('/api/v1/developers/keys', { body: { name, environment } })).key,
    onSuccess: (key) => {
      setName('');
      create.reset();
      props.onCreated(key);
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };
  return (
    <Modal opened={props.opened} onClose={props.onClose} title="Create an API key">
      <form onSubmit={submit}>
        <Stack>
          <TextInput
            label="Name"
            description="Where the key will be used, e.g. my laptop"
            required
            maxLength={100}
            value={name}
            onChange={(e) => setName(e.currentTarget.value)}
            data-autofocus
          />
          <NativeSelect
            label="Environment"
            data={[
              { value: 'live', label: 'Live (pk_live_)' },
              { value: 'test', label: 'Test (pk_test_)' },
            ]}
            value={environment}
            onChange={(e) => setEnvironment(e.currentTarget.value as 'live' | 'test')}
          />
          <ErrorAlert error={create.error} title="The key was not created" />
          <Group justify="flex-end">
            <Button variant="default" onClick={props.onClose}>
              Cancel
            </Button>
            <Button type="submit" loading={create.isPending}>
              Create key
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}

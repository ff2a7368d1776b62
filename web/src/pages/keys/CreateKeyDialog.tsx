import { Button, Checkbox, Group, Modal, NativeSelect, SimpleGrid, Stack, TextInput } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { type FormEvent, useEffect, useState } from 'react';
import { api, environmentStore, unwrap } from '../../api/client';
import type { components } from '../../api/schema';
import { ErrorAlert } from '../../components/ui';
import { useStoredValue } from '../../store';

export type CreatedKey = components['schemas']['CreatedApiKey']['key'];
type Scope = NonNullable<components['schemas']['CreateKeyRequest']['scopes']>[number];

/** Every scope, by area (docs/api-contract.md "Scopes"); a new key carries them all unless narrowed. */
const SCOPES_BY_AREA: [area: string, scopes: Scope[]][] = [
  ['MCP servers', ['mcp:read', 'mcp:write']],
  ['Tools', ['tools:read', 'tools:write']],
  ['Webhooks', ['webhooks:read', 'webhooks:write']],
  ['Workflows', ['workflows:read', 'workflows:write', 'workflows:execute']],
  ['Activities', ['activities:read', 'activities:write']],
  ['OAuth', ['oauth:read', 'oauth:write']],
  ['Secrets', ['secrets:read', 'secrets:write']],
  ['Sessions', ['sessions:read', 'sessions:write']],
];
const ALL_SCOPES = SCOPES_BY_AREA.flatMap(([, scopes]) => scopes);

/**
 * "Create an API key": a name, an environment (the one the header shows, at first) and its scopes
 * (all, at first); the new key (with its full secret) goes to onCreated.
 */
export function CreateKeyDialog(props: {
  opened: boolean;
  onClose(): void;
  onCreated(key: CreatedKey): void;
}) {
  const [name, setName] = useState('');
  const selected = useStoredValue(environmentStore);
  const [environment, setEnvironment] = useState<'live' | 'test'>(selected);
  const [scopes, setScopes] = useState<string[]>(ALL_SCOPES);
  // biome-ignore lint/correctness/useExhaustiveDependencies: each opening starts from the header's environment
  useEffect(() => setEnvironment(selected), [props.opened, selected]);
  const create = useMutation({
    mutationFn: async () =>
      unwrap(
        await api.POST('/api/v1/developers/keys', {
          body: { name, environment, scopes: scopes as Scope[] },
        }),
      ).key,
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
          <Checkbox.Group
            label="Scopes"
            description="What the key may do; keep only what its code needs"
            value={scopes}
            onChange={setScopes}
            error={scopes.length === 0 ? 'Choose at least one scope' : undefined}
          >
            <SimpleGrid cols={{ base: 1, xs: 2 }} mt="xs" spacing={6}>
              {SCOPES_BY_AREA.flatMap(([area, areaScopes]) =>
                areaScopes.map((scope) => (
                  <Checkbox key={scope} value={scope} label={scope} aria-description={area} />
                )),
              )}
            </SimpleGrid>
          </Checkbox.Group>
          <ErrorAlert error={create.error} title="The key was not created" />
          <Group justify="flex-end">
            <Button variant="default" onClick={props.onClose}>
              Cancel
            </Button>
            <Button type="submit" loading={create.isPending} disabled={scopes.length === 0}>
              Create key
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}

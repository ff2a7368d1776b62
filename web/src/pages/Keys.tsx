import {
  Alert,
  Badge,
  Button,
  Code,
  CopyButton,
  Group,
  Modal,
  NativeSelect,
  Stack,
  Table,
  Text,
  TextInput,
  VisuallyHidden,
} from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { api, CONSOLE_KEY_NAME, heldConsoleKeyIds, unwrap } from '../api/client';
import type { components } from '../api/schema';
import { Empty, ErrorAlert, formatTime, PageHeader, PageLoader, ScrollTable } from '../components/ui';

type CreatedKey = components['schemas']['CreatedApiKey']['key'];
type ApiKey = components['schemas']['ApiKey'];

/** API keys: list, create (the full key shown once, to copy), revoke. */
export default function KeysPage() {
  const queryClient = useQueryClient();
  const keys = useQuery({
    queryKey: ['keys'],
    queryFn: async () => unwrap(await api.GET('/api/v1/developers/keys')).keys,
  });
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<CreatedKey | null>(null);
  const [revoking, setRevoking] = useState<ApiKey | null>(null);
  const consoleKeys = new Set(heldConsoleKeyIds());

  const revoke = useMutation({
    mutationFn: async (id: string) =>
      unwrap(await api.DELETE('/api/v1/developers/keys/{id}', { params: { path: { id } } })),
    onSuccess: () => {
      setRevoking(null);
      queryClient.invalidateQueries({ queryKey: ['keys'] });
    },
  });

  return (
    <>
      <PageHeader
        title="API keys"
        description="Keys authenticate calls to the platform API (/api/v2). pk_live_ keys see live data, pk_test_ keys the sandbox."
        actions={<Button onClick={() => setCreating(true)}>Create key</Button>}
      />
      <ErrorAlert error={keys.error} />
      {keys.isPending ? (
        <PageLoader />
      ) : keys.data?.length === 0 ? (
        <Empty>No keys yet. Create one to call the platform API.</Empty>
      ) : (
        <ScrollTable minWidth={640}>
          <Table striped highlightOnHover aria-label="API keys">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Name</Table.Th>
                <Table.Th>Key</Table.Th>
                <Table.Th>Environment</Table.Th>
                <Table.Th>Created</Table.Th>
                <Table.Th>Last used</Table.Th>
                <Table.Th>
                  <VisuallyHidden>Actions</VisuallyHidden>
                </Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {keys.data?.map((key) => (
                <Table.Tr key={key.id} data-testid={`key-row-${key.id}`}>
                  <Table.Td>
                    {key.name}{' '}
                    {key.name === CONSOLE_KEY_NAME && consoleKeys.has(key.id) ? (
                      <Badge size="xs" variant="outline" color="gray.8">
                        this browser
                      </Badge>
                    ) : null}
                  </Table.Td>
                  <Table.Td>
                    <Code>{key.prefix}</Code>
                  </Table.Td>
                  <Table.Td>{key.environment}</Table.Td>
                  <Table.Td>{formatTime(key.createdAt)}</Table.Td>
                  <Table.Td>{formatTime(key.lastUsedAt)}</Table.Td>
                  <Table.Td>
                    <Button
                      size="xs"
                      color="red.8"
                      variant="outline"
                      onClick={() => setRevoking(key)}
                      aria-label={`Revoke ${key.name}`}
                    >
                      Revoke
                    </Button>
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </ScrollTable>
      )}

      <CreateKeyModal
        opened={creating}
        onClose={() => setCreating(false)}
        onCreated={(key) => {
          setCreating(false);
          setCreated(key);
          queryClient.invalidateQueries({ queryKey: ['keys'] });
        }}
      />

      <Modal
        opened={created !== null}
        onClose={() => setCreated(null)}
        title="Copy your new key now"
        size="lg"
      >
        {created ? (
          <Stack>
            <Alert color="yellow" role="status">
              This is the only time the full key is shown. Store it somewhere safe: later you will see only{' '}
              <Code>{created.prefix}</Code>.
            </Alert>
            <Code block data-testid="full-key" style={{ wordBreak: 'break-all', whiteSpace: 'pre-wrap' }}>
              {created.fullKey}
            </Code>
            <Group justify="flex-end">
              <CopyButton value={created.fullKey}>
                {({ copied, copy }) => (
                  <Button variant="default" onClick={copy}>
                    {copied ? 'Copied' : 'Copy key'}
                  </Button>
                )}
              </CopyButton>
              <Button onClick={() => setCreated(null)}>I stored it</Button>
            </Group>
          </Stack>
        ) : null}
      </Modal>

      <Modal opened={revoking !== null} onClose={() => setRevoking(null)} title="Revoke this key?">
        {revoking ? (
          <Stack>
            <Text>
              <strong>{revoking.name}</strong> (<Code>{revoking.prefix}</Code>) stops working on its next
              request. This cannot be undone.
            </Text>
            <ErrorAlert error={revoke.error} />
            <Group justify="flex-end">
              <Button variant="default" onClick={() => setRevoking(null)}>
                Cancel
              </Button>
              <Button color="red.8" loading={revoke.isPending} onClick={() => revoke.mutate(revoking.id)}>
                Revoke key
              </Button>
            </Group>
          </Stack>
        ) : null}
      </Modal>
    </>
  );
}

function CreateKeyModal(props: { opened: boolean; onClose(): void; onCreated(key: CreatedKey): void }) {
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

import { Badge, Button, Code, Group, Text, VisuallyHidden } from '@mantine/core';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, unwrap } from '../api/client';
import { providersQuery } from '../api/queries';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { type Column, DataTable } from '../components/DataTable';
import { ListPage } from '../components/ListPage';
import { formatTime } from '../components/ui';
import { ConnectProviderDialog } from './providers/ConnectProviderDialog';
import { EditProviderDialog } from './providers/EditProviderDialog';
import { KIND_LABELS, type Provider, whereLabel } from './providers/presets';

/** Where a provider is: a preset by name, or its base URL (and the API it speaks when not OpenAI's). */
function Where({ provider }: { provider: Provider }) {
  if (provider.preset) return <Text size="sm">{whereLabel(provider)} (preset)</Text>;
  return (
    <Group gap={6} wrap="wrap">
      <Code style={{ overflowWrap: 'anywhere' }}>{provider.baseUrl}</Code>
      {provider.api === 'openai' ? null : <Text size="xs">({provider.api} API)</Text>}
    </Group>
  );
}

/** The table's columns, with each row's Edit and Delete. */
const providerColumns = (edit: (p: Provider) => void, remove: (p: Provider) => void): Column<Provider>[] => [
  { header: 'Name', cell: (p) => <Text fw={600}>{p.name}</Text> },
  {
    header: 'Kind',
    cell: (p) => (
      <Badge variant="outline" color="gray.8">
        {KIND_LABELS[p.kind]}
      </Badge>
    ),
  },
  { header: 'Preset or base URL', cell: (p) => <Where provider={p} /> },
  { header: 'Created', cell: (p) => formatTime(p.createdAt) },
  {
    header: <VisuallyHidden>Actions</VisuallyHidden>,
    cell: (p) => (
      <Group gap={6} wrap="nowrap">
        <Button size="xs" variant="default" onClick={() => edit(p)} aria-label={`Edit ${p.name}`}>
          Edit
        </Button>
        <Button
          size="xs"
          variant="outline"
          color="red.8"
          onClick={() => remove(p)}
          aria-label={`Delete ${p.name}`}
        >
          Delete
        </Button>
      </Group>
    ),
  },
];

/** "Delete PROVIDER?": refused (409) while a persona picks it; the dialog shows the API's message. */
function DeleteProviderDialog(props: { provider: Provider | null; onClose(): void; onDone(): void }) {
  return (
    <ConfirmDialog
      opened={props.provider !== null}
      title={`Delete ${props.provider?.name ?? 'this provider'}?`}
      confirmLabel="Delete provider"
      action={async () =>
        unwrap(
          await api.DELETE('/api/v2/developers/providers/{id}', {
            params: { path: { id: props.provider?.id ?? '' } },
          }),
        )
      }
      onClose={props.onClose}
      onDone={props.onDone}
    >
      Its key is deleted with it. A provider that a persona (or one of its versions) picks cannot be deleted:
      pick another in each persona first.
    </ConfirmDialog>
  );
}

/**
 * Providers: the chat models, transcription and voice services the account connected with its own
 * keys (docs/providers.md), which its personas pick. Keys are never shown; they can be replaced.
 */
export default function ProvidersPage() {
  const queryClient = useQueryClient();
  const [connecting, setConnecting] = useState(false);
  const [editing, setEditing] = useState<Provider | null>(null);
  const [deleting, setDeleting] = useState<Provider | null>(null);
  const providers = useQuery(providersQuery());
  const refresh = () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: ['providers'] }),
      // the persona form's voice picker lists the voice providers' voices
      queryClient.invalidateQueries({ queryKey: ['voices'] }),
    ]);
  const columns = providerColumns(setEditing, setDeleting);
  return (
    <>
      <ListPage
        title="Providers"
        description="Your own chat models, transcription and voices, with your keys; each persona picks from them (otherwise the platform's default). Keys are stored encrypted and never shown."
        actions={<Button onClick={() => setConnecting(true)}>Connect provider</Button>}
        items={providers.data}
        pending={providers.isPending}
        error={providers.error}
        empty="No providers yet: your agents use the platform's model, transcription and voices."
        emptyAction={
          <Button variant="default" onClick={() => setConnecting(true)}>
            Connect your first provider
          </Button>
        }
      >
        {(rows) => (
          <DataTable
            label="Providers"
            minWidth={720}
            striped
            rows={rows}
            columns={columns}
            rowKey={(p) => p.id}
          />
        )}
      </ListPage>
      <ConnectProviderDialog
        opened={connecting}
        onClose={() => setConnecting(false)}
        onSaved={() => {
          setConnecting(false);
          void refresh();
        }}
      />
      <EditProviderDialog
        provider={editing}
        onClose={() => setEditing(null)}
        onSaved={() => {
          setEditing(null);
          void refresh();
        }}
      />
      <DeleteProviderDialog
        provider={deleting}
        onClose={() => setDeleting(null)}
        onDone={() => {
          setDeleting(null);
          void refresh();
        }}
      />
    </>
  );
}

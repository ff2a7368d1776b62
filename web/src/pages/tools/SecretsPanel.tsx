import { Button, Code, Group, VisuallyHidden } from '@mantine/core';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, environmentStore, unwrap } from '../../api/client';
import type { components } from '../../api/schema';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { type Column, DataTable } from '../../components/DataTable';
import { ListBody } from '../../components/ListPage';
import { formatTime } from '../../components/ui';
import { useStoredValue } from '../../store';
import { PanelHeader } from './PanelHeader';
import { SetSecretDialog } from './SetSecretDialog';

type Secret = components['schemas']['Secret'];

/** The environment's secrets, by name only: set, replace, delete. */
export function SecretsPanel() {
  const environment = useStoredValue(environmentStore);
  const queryClient = useQueryClient();
  const [setting, setSetting] = useState<{ name?: string } | null>(null);
  const [deleting, setDeleting] = useState<string | null>(null);
  const secrets = useQuery({
    queryKey: ['secrets', environment],
    queryFn: async () =>
      unwrap(await api.GET('/api/v2/developers/secrets', { params: { query: { limit: 100 } } })),
  });
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['secrets'] });
  const columns: Column<Secret>[] = [
    { header: 'Name', cell: (s) => <Code>{s.name}</Code> },
    { header: 'Use as', cell: (s) => <Code>{`{{secrets.${s.name}}}`}</Code> },
    { header: 'Created', cell: (s) => formatTime(s.createdAt) },
    { header: 'Last set', cell: (s) => formatTime(s.updatedAt) },
    {
      header: <VisuallyHidden>Actions</VisuallyHidden>,
      cell: (s) => (
        <Group gap={6} wrap="nowrap">
          <Button
            size="xs"
            variant="default"
            onClick={() => setSetting({ name: s.name })}
            aria-label={`Replace ${s.name}`}
          >
            Replace
          </Button>
          <Button
            size="xs"
            variant="outline"
            color="red.8"
            onClick={() => setDeleting(s.name)}
            aria-label={`Delete ${s.name}`}
          >
            Delete
          </Button>
        </Group>
      ),
    },
  ];
  return (
    <>
      <PanelHeader
        title="Secrets"
        description={`Credentials your tools' headers and configs use as {{secrets.NAME}}; values are never shown (${environment} environment).`}
        action={<Button onClick={() => setSetting({})}>Set secret</Button>}
      />
      <ListBody
        items={secrets.data?.data}
        pending={secrets.isPending}
        error={secrets.error}
        empty={<>No secrets in the {environment} environment.</>}
      >
        {(rows) => (
          <DataTable
            label="Secrets"
            minWidth={640}
            striped
            rows={rows}
            columns={columns}
            rowKey={(s) => s.name}
          />
        )}
      </ListBody>
      <SetSecretDialog
        opened={setting !== null}
        name={setting?.name}
        onClose={() => setSetting(null)}
        onSaved={() => {
          setSetting(null);
          void refresh();
        }}
      />
      <ConfirmDialog
        opened={deleting !== null}
        title="Delete this secret?"
        confirmLabel="Delete secret"
        action={async () =>
          unwrap(
            await api.DELETE('/api/v2/developers/secrets/{name}', {
              params: { path: { name: deleting ?? '' } },
            }),
          )
        }
        onClose={() => setDeleting(null)}
        onDone={() => {
          setDeleting(null);
          void refresh();
        }}
      >
        Tools and MCP servers that use {`{{secrets.${deleting ?? ''}}}`} fail until it is set again.
      </ConfirmDialog>
    </>
  );
}

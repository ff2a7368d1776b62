import { Badge, Button, Code, VisuallyHidden } from '@mantine/core';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, CONSOLE_KEY_NAME, heldConsoleKeyIds, unwrap } from '../api/client';
import type { components } from '../api/schema';
import { type Column, DataTable } from '../components/DataTable';
import { ListPage } from '../components/ListPage';
import { formatTime } from '../components/ui';
import { type CreatedKey, CreateKeyDialog } from './keys/CreateKeyDialog';
import { NewKeyDialog } from './keys/NewKeyDialog';
import { RevokeKeyDialog } from './keys/RevokeKeyDialog';

type ApiKey = components['schemas']['ApiKey'];

/** The keys table's columns; the console's own keys held by this browser are marked. */
function keyColumns(consoleKeys: Set<string>, onRevoke: (key: ApiKey) => void): Column<ApiKey>[] {
  return [
    {
      header: 'Name',
      cell: (key) => (
        <>
          {key.name}{' '}
          {key.name === CONSOLE_KEY_NAME && consoleKeys.has(key.id) ? (
            <Badge size="xs" variant="outline" color="gray.8">
              this browser
            </Badge>
          ) : null}
        </>
      ),
    },
    { header: 'Key', cell: (key) => <Code>{key.prefix}</Code> },
    { header: 'Environment', cell: (key) => key.environment },
    { header: 'Created', cell: (key) => formatTime(key.createdAt) },
    { header: 'Last used', cell: (key) => formatTime(key.lastUsedAt) },
    {
      header: <VisuallyHidden>Actions</VisuallyHidden>,
      cell: (key) => (
        <Button
          size="xs"
          color="red.8"
          variant="outline"
          onClick={() => onRevoke(key)}
          aria-label={`Revoke ${key.name}`}
        >
          Revoke
        </Button>
      ),
    },
  ];
}

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
  const columns = keyColumns(new Set(heldConsoleKeyIds()), setRevoking);

  return (
    <>
      <ListPage
        title="API keys"
        description="Keys authenticate calls to the platform API (/api/v2). pk_live_ keys see live data, pk_test_ keys the sandbox."
        actions={<Button onClick={() => setCreating(true)}>Create key</Button>}
        items={keys.data}
        pending={keys.isPending}
        error={keys.error}
        empty="No keys yet. Create one to call the platform API."
      >
        {(rows) => (
          <DataTable
            label="API keys"
            minWidth={640}
            striped
            highlightOnHover
            rows={rows}
            columns={columns}
            rowKey={(key) => key.id}
            rowProps={(key) => ({ 'data-testid': `key-row-${key.id}` })}
          />
        )}
      </ListPage>
      <CreateKeyDialog
        opened={creating}
        onClose={() => setCreating(false)}
        onCreated={(key) => {
          setCreating(false);
          setCreated(key);
          queryClient.invalidateQueries({ queryKey: ['keys'] });
        }}
      />
      <NewKeyDialog created={created} onClose={() => setCreated(null)} />
      <RevokeKeyDialog revoking={revoking} onClose={() => setRevoking(null)} />
    </>
  );
}

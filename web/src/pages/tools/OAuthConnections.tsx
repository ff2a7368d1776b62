import { Button, Code, VisuallyHidden } from '@mantine/core';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, environmentStore, unwrap } from '../../api/client';
import type { components } from '../../api/schema';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { type Column, DataTable } from '../../components/DataTable';
import { ListBody } from '../../components/ListPage';
import { formatTime, StatusBadge } from '../../components/ui';
import { useStoredValue } from '../../store';
import { PanelHeader } from './PanelHeader';

type Token = components['schemas']['OAuthToken'];

/** Connected accounts (never the tokens themselves): provider, scopes, status, expiry; revoke. */
export function OAuthConnections() {
  const environment = useStoredValue(environmentStore);
  const queryClient = useQueryClient();
  const [revoking, setRevoking] = useState<Token | null>(null);
  const tokens = useQuery({
    queryKey: ['oauth-tokens', environment],
    queryFn: async () =>
      unwrap(await api.GET('/api/v2/developers/oauth/tokens', { params: { query: { limit: 100 } } })),
  });
  const columns: Column<Token>[] = [
    { header: 'Provider', cell: (t) => t.providerName ?? t.providerId },
    { header: 'ID', cell: (t) => <Code>{t.id}</Code> },
    { header: 'Scopes', cell: (t) => t.scopes.join(' ') || '—' },
    { header: 'Status', cell: (t) => <StatusBadge status={t.status} /> },
    { header: 'Expires', cell: (t) => formatTime(t.expiresAt) },
    { header: 'Refreshable', cell: (t) => (t.refreshable ? 'yes' : 'no') },
    { header: 'Connected', cell: (t) => formatTime(t.createdAt) },
    {
      header: <VisuallyHidden>Actions</VisuallyHidden>,
      cell: (t) =>
        t.status === 'revoked' ? null : (
          <Button
            size="xs"
            variant="outline"
            color="red.8"
            onClick={() => setRevoking(t)}
            aria-label={`Revoke ${t.id}`}
          >
            Revoke
          </Button>
        ),
    },
  ];
  return (
    <>
      <PanelHeader
        title="Connections"
        description="Give an MCP server or a webhook tool a connection's ID to send its token, refreshed when it expires."
      />
      <ListBody
        items={tokens.data?.data}
        pending={tokens.isPending}
        error={tokens.error}
        empty={<>No connected accounts in the {environment} environment.</>}
      >
        {(rows) => (
          <DataTable
            label="OAuth connections"
            minWidth={900}
            rows={rows}
            columns={columns}
            rowKey={(t) => t.id}
          />
        )}
      </ListBody>
      <ConfirmDialog
        opened={revoking !== null}
        title="Revoke this connection?"
        confirmLabel="Revoke"
        action={async () =>
          unwrap(
            await api.DELETE('/api/v2/developers/oauth/tokens/{id}', {
              params: { path: { id: revoking?.id ?? '' } },
            }),
          )
        }
        onClose={() => setRevoking(null)}
        onDone={() => {
          setRevoking(null);
          void queryClient.invalidateQueries({ queryKey: ['oauth-tokens'] });
        }}
      >
        Tools and MCP servers using {revoking?.id} stop being authorized; the provider is told too when it has
        a revocation URL.
      </ConfirmDialog>
    </>
  );
}

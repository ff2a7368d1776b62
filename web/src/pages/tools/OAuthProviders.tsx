import { Button, Group, Text, VisuallyHidden } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, environmentStore, unwrap } from '../../api/client';
import type { components } from '../../api/schema';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { type Column, DataTable } from '../../components/DataTable';
import { ListBody } from '../../components/ListPage';
import { ErrorAlert } from '../../components/ui';
import { useStoredValue } from '../../store';
import { consoleOAuthRedirectUri } from './oauthRedirect';
import { PanelHeader } from './PanelHeader';
import { RegisterProviderDialog } from './RegisterProviderDialog';

type Provider = components['schemas']['OAuthProvider'];

/** Starts connecting an account: asks for an authorization URL (state, PKCE) and sends the browser there. */
function useConnect() {
  return useMutation({
    mutationFn: async (providerId: string) =>
      unwrap(
        await api.POST('/api/v2/developers/oauth/authorize', {
          body: { providerId, redirectUri: consoleOAuthRedirectUri() },
        }),
      ).data,
    onSuccess: (authorization) => window.location.assign(authorization.authorizationUrl),
  });
}

/** The environment's OAuth providers: register, connect an account (the provider's consent page), delete. */
export function OAuthProviders() {
  const environment = useStoredValue(environmentStore);
  const queryClient = useQueryClient();
  const [registering, setRegistering] = useState(false);
  const [deleting, setDeleting] = useState<Provider | null>(null);
  const connect = useConnect();
  const providers = useQuery({
    queryKey: ['oauth-providers', environment],
    queryFn: async () =>
      unwrap(await api.GET('/api/v2/developers/oauth/providers', { params: { query: { limit: 100 } } })),
  });
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['oauth-providers'] });
  const columns: Column<Provider>[] = [
    { header: 'Name', cell: (p) => p.name },
    { header: 'Authorization URL', cell: (p) => p.authorizationUrl, style: { wordBreak: 'break-all' } },
    { header: 'Client ID', cell: (p) => p.clientId, style: { wordBreak: 'break-all' } },
    { header: 'Scopes', cell: (p) => p.scopes.join(' ') || '—' },
    {
      header: <VisuallyHidden>Actions</VisuallyHidden>,
      cell: (p) => (
        <Group gap={6} wrap="nowrap">
          <Button
            size="xs"
            onClick={() => connect.mutate(p.id)}
            loading={connect.isPending && connect.variables === p.id}
            aria-label={`Connect ${p.name}`}
          >
            Connect
          </Button>
          <Button
            size="xs"
            variant="outline"
            color="red.8"
            onClick={() => setDeleting(p)}
            aria-label={`Delete ${p.name}`}
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
        title="OAuth providers"
        description={`Services your tools act on for a user; Connect signs in there and stores the token (${environment} environment).`}
        action={<Button onClick={() => setRegistering(true)}>Register provider</Button>}
      />
      <ErrorAlert error={connect.error} title="Connecting did not start" />
      <ListBody
        items={providers.data?.data}
        pending={providers.isPending}
        error={providers.error}
        empty={<>No OAuth providers in the {environment} environment.</>}
      >
        {(rows) => (
          <DataTable
            label="OAuth providers"
            minWidth={820}
            rows={rows}
            columns={columns}
            rowKey={(p) => p.id}
          />
        )}
      </ListBody>
      <Text size="xs" c="dimmed" mt="xs">
        The provider must allow the redirect URI {consoleOAuthRedirectUri()}
      </Text>
      <RegisterProviderDialog
        opened={registering}
        onClose={() => setRegistering(false)}
        onCreated={() => {
          setRegistering(false);
          void refresh();
        }}
      />
      <ConfirmDialog
        opened={deleting !== null}
        title="Delete this provider?"
        confirmLabel="Delete provider"
        action={async () =>
          unwrap(
            await api.DELETE('/api/v2/developers/oauth/providers/{id}', {
              params: { path: { id: deleting?.id ?? '' } },
            }),
          )
        }
        onClose={() => setDeleting(null)}
        onDone={() => {
          setDeleting(null);
          void refresh();
          void queryClient.invalidateQueries({ queryKey: ['oauth-tokens'] });
        }}
      >
        {deleting?.name} and every connection made through it are deleted.
      </ConfirmDialog>
    </>
  );
}

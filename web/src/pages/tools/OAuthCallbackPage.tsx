import { Alert, Anchor, Code, Stack } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { Link, useSearchParams } from 'react-router';
import { api, unwrap } from '../../api/client';
import { ErrorAlert, PageHeader, PageLoader } from '../../components/ui';

/**
 * Where the provider sends the browser back after consent: the code and state go to the platform's
 * callback (GET /oauth/callback), which checks the state and PKCE, exchanges the code and stores the
 * token. A state is used once, so the query never runs twice.
 */
export default function OAuthCallbackPage() {
  const [params] = useSearchParams();
  const state = params.get('state') ?? '';
  const exchange = useQuery({
    queryKey: ['oauth-callback', state],
    retry: false,
    staleTime: Number.POSITIVE_INFINITY,
    gcTime: Number.POSITIVE_INFINITY,
    refetchOnWindowFocus: false,
    queryFn: async () =>
      unwrap(
        await api.GET('/api/v2/developers/oauth/callback', {
          params: {
            query: {
              state,
              code: params.get('code') ?? undefined,
              error: params.get('error') ?? undefined,
              error_description: params.get('error_description') ?? undefined,
            },
          },
        }),
      ).data,
  });
  return (
    <Stack>
      <PageHeader title="Connecting an account" />
      {exchange.isPending ? <PageLoader /> : null}
      <ErrorAlert error={exchange.error} title="The account was not connected" />
      {exchange.data ? (
        <Alert color="green" role="status" title="Connected" data-testid="oauth-connected">
          {exchange.data.providerName ?? exchange.data.providerId} is connected as{' '}
          <Code>{exchange.data.id}</Code>
          {exchange.data.scopes.length ? ` (${exchange.data.scopes.join(' ')})` : ''}.
        </Alert>
      ) : null}
      <Anchor component={Link} to="/tools?tab=oauth">
        Back to OAuth connections
      </Anchor>
    </Stack>
  );
}

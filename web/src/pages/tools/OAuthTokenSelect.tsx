import { NativeSelect } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { api, environmentStore, unwrap } from '../../api/client';
import { useStoredValue } from '../../store';

/** Optional: one of the environment's OAuth connections, sent as the bearer token. */
export function OAuthTokenSelect(props: { value: string; onChange(id: string): void }) {
  const environment = useStoredValue(environmentStore);
  const tokens = useQuery({
    queryKey: ['oauth-tokens', environment],
    queryFn: async () =>
      unwrap(await api.GET('/api/v2/developers/oauth/tokens', { params: { query: { limit: 100 } } })),
  });
  const active = (tokens.data?.data ?? []).filter((t) => t.status !== 'revoked');
  return (
    <NativeSelect
      label="OAuth connection"
      description="Sent as Authorization: Bearer …, refreshed when it expires (Tools → OAuth)"
      value={props.value}
      onChange={(e) => props.onChange(e.currentTarget.value)}
      data={[
        { value: '', label: 'None' },
        ...active.map((t) => ({ value: t.id, label: `${t.providerName ?? t.providerId} · ${t.id}` })),
      ]}
    />
  );
}

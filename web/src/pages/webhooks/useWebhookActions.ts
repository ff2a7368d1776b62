import { useMutation } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';

/** A webhook's actions: send a test, rotate its secret, enable or disable it (refreshing its page). */
export function useWebhookActions(id: string, refresh: () => void) {
  const params = { path: { id } };
  const test = useMutation({
    mutationFn: async () => unwrap(await api.POST('/api/v2/developers/webhooks/{id}/test', { params })).data,
    onSuccess: refresh,
  });
  const rotate = useMutation({
    mutationFn: async () =>
      unwrap(await api.POST('/api/v2/developers/webhooks/{id}/rotate-secret', { params })).data,
  });
  const toggle = useMutation({
    mutationFn: async (enabled: boolean) =>
      unwrap(await api.PUT('/api/v2/developers/webhooks/{id}', { params, body: { enabled } })),
    onSuccess: refresh,
  });
  return { test, rotate, toggle };
}

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { backoffPolling } from '../../api/polling';

/**
 * A persona (followed while under review, so the decision shows as it lands), the submission
 * rules' verdict on its saved version, and its submit and unpublish actions.
 */
export function usePersona(id: string, onUnpublished: () => void) {
  const queryClient = useQueryClient();
  const params = { path: { id } };
  const persona = useQuery({
    queryKey: ['persona', id],
    queryFn: async () => unwrap(await api.GET('/api/v1/developers/personas/{id}', { params })).persona,
    refetchInterval: backoffPolling((p) => p?.status === 'submitted'),
  });
  const validation = useQuery({
    queryKey: ['persona', id, 'validation', persona.data?.version],
    enabled: persona.data !== undefined,
    queryFn: async () => unwrap(await api.POST('/api/v1/developers/personas/{id}/validate', { params })),
  });
  const submit = useMutation({
    mutationFn: async () => unwrap(await api.POST('/api/v1/developers/personas/{id}/submit', { params })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['persona', id] }),
  });
  const unpublish = useMutation({
    mutationFn: async () =>
      unwrap(await api.POST('/api/v1/developers/personas/{id}/unpublish', { params })).persona,
    onSuccess: (p) => {
      onUnpublished();
      queryClient.setQueryData(['persona', id], p);
    },
  });
  return { persona, validation, submit, unpublish };
}

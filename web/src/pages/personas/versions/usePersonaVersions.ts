import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../../api/client';
import type { components } from '../../../api/schema';

export type PersonaVersion = components['schemas']['PersonaVersion'];
export type PatchOperation = components['schemas']['JsonPatchOperation'];

/**
 * A persona's approved versions (newest first), the difference between two of them, and the
 * actions on them: roll back to one, and open a revision of the published persona. Both actions
 * refresh the persona (its status or live version changed) and its versions; so does a new live
 * version seen on the persona (an approval landing while the page follows its review).
 */
export function usePersonaVersions(id: string, liveVersion: number | null) {
  const queryClient = useQueryClient();
  const params = { path: { id } };
  const versions = useQuery({
    queryKey: ['persona', id, 'versions', liveVersion],
    queryFn: async () => unwrap(await api.GET('/api/v1/developers/personas/{id}/versions', { params })),
    // the list stays (and the comparison keeps its picks) while the next live version's list loads
    placeholderData: (previous, previousQuery) => (previousQuery?.queryKey[1] === id ? previous : undefined),
  });
  const changed = (persona: components['schemas']['Persona']) => {
    queryClient.setQueryData(['persona', id], persona);
    return queryClient.invalidateQueries({ queryKey: ['persona', id, 'versions'] });
  };
  const rollback = useMutation({
    mutationFn: async (version: number) =>
      unwrap(await api.POST('/api/v1/developers/personas/{id}/rollback', { params, body: { version } }))
        .persona,
    onSuccess: changed,
  });
  const revise = useMutation({
    mutationFn: async () =>
      unwrap(await api.POST('/api/v1/developers/personas/{id}/revise', { params })).persona,
    onSuccess: changed,
  });
  return { versions, rollback, revise };
}

/** The JSON Patch that turns version `from`'s manifest into `to`'s; nothing is asked until both are picked. */
export function useVersionDiff(id: string, from: number | null, to: number | null) {
  return useQuery({
    queryKey: ['persona', id, 'versions', 'diff', from, to],
    enabled: from !== null && to !== null,
    queryFn: async () =>
      unwrap(
        await api.GET('/api/v1/developers/personas/{id}/versions/diff', {
          params: { path: { id }, query: { from: from ?? 0, to: to ?? 0 } },
        }),
      ),
  });
}

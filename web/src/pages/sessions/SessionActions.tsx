import { Anchor, Button } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { ErrorAlert } from '../../components/ui';
import { loadConsoleConfig, temporalExecutionUrl } from '../../config';

/**
 * A session's actions: its workflow in the Temporal Web UI (the workflow id is the session's id) and,
 * while it is live, ending it (`POST /sessions/:id/end`; a call under way hears `session.ended`).
 */
export function SessionActions({ id, active }: { id: string; active: boolean }) {
  const queryClient = useQueryClient();
  const config = useQuery({ queryKey: ['console-config'], queryFn: loadConsoleConfig, staleTime: Infinity });
  const end = useMutation({
    mutationFn: async () =>
      unwrap(await api.POST('/api/v2/developers/sessions/{id}/end', { params: { path: { id } } })).data,
    onSuccess: () => {
      queryClient.invalidateQueries({ queryKey: ['session'] });
      queryClient.invalidateQueries({ queryKey: ['sessions'] });
    },
  });
  const temporalUrl = config.data ? temporalExecutionUrl(config.data, id) : null;
  return (
    <>
      {temporalUrl ? (
        <Anchor href={temporalUrl} target="_blank" rel="noopener" data-testid="session-temporal-link">
          Open in Temporal
        </Anchor>
      ) : null}
      {active ? (
        <Button variant="outline" color="red.8" onClick={() => end.mutate()} loading={end.isPending}>
          End session
        </Button>
      ) : null}
      <ErrorAlert error={end.error} title="The session did not end" />
    </>
  );
}

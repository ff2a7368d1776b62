import { Anchor, Button } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from 'react-router';
import { api, unwrap } from '../../api/client';
import { ErrorAlert } from '../../components/ui';
import { loadConsoleConfig, temporalExecutionUrl } from '../../config';
import { type Call, callEnded } from './call-columns';

/**
 * A call's actions: its session, its workflow in the Temporal Web UI (the workflow id is the call's
 * id) and, while it is under way, hanging up (`POST /calls/:id/hangup`).
 */
export function CallActions({ call }: { call: Call }) {
  const queryClient = useQueryClient();
  const config = useQuery({ queryKey: ['console-config'], queryFn: loadConsoleConfig, staleTime: Infinity });
  const hangUp = useMutation({
    mutationFn: async () =>
      unwrap(await api.POST('/api/v2/developers/calls/{id}/hangup', { params: { path: { id: call.id } } }))
        .data,
    onSuccess: () => {
      queryClient.invalidateQueries({ queryKey: ['call'] });
      queryClient.invalidateQueries({ queryKey: ['calls'] });
    },
  });
  const temporalUrl = config.data ? temporalExecutionUrl(config.data, call.id) : null;
  return (
    <>
      {call.sessionId ? (
        <Anchor component={Link} to={`/sessions/${call.sessionId}`} data-testid="call-session-link">
          Session
        </Anchor>
      ) : null}
      {temporalUrl ? (
        <Anchor href={temporalUrl} target="_blank" rel="noopener" data-testid="call-temporal-link">
          Open in Temporal
        </Anchor>
      ) : null}
      {callEnded(call) ? null : (
        <Button variant="outline" color="red.8" onClick={() => hangUp.mutate()} loading={hangUp.isPending}>
          Hang up
        </Button>
      )}
      <ErrorAlert error={hangUp.error} title="The call did not hang up" />
    </>
  );
}

import { Anchor, Paper, Stack, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { api, environmentStore, unwrap } from '../../api/client';
import { backoffPolling } from '../../api/polling';
import { ErrorAlert, PageLoader } from '../../components/ui';
import { useStoredValue } from '../../store';

/** What was said on the call: its session's greeting and turns (followed while the session is live). */
export function CallTranscript({ sessionId }: { sessionId: string | null }) {
  const environment = useStoredValue(environmentStore);
  const session = useQuery({
    queryKey: ['call-session', environment, sessionId],
    enabled: sessionId !== null,
    queryFn: async () =>
      unwrap(await api.GET('/api/v2/developers/sessions/{id}', { params: { path: { id: sessionId ?? '' } } }))
        .data,
    refetchInterval: backoffPolling((s) => s?.status === 'active'),
  });
  if (sessionId === null) {
    return (
      <Text size="sm" c="dimmed">
        No conversation: the call's media stream never started.
      </Text>
    );
  }
  if (session.isPending) return <PageLoader />;
  if (!session.data) return <ErrorAlert error={session.error} title="The call's session did not load" />;
  const s = session.data;
  return (
    <>
      <Stack gap="xs" component="ol" style={{ listStyle: 'none', padding: 0 }} aria-label="Transcript">
        <li>
          <Paper withBorder p="xs">
            <Text size="xs" fw={700}>
              Agent (greeting)
            </Text>
            <Text size="sm">{s.greeting}</Text>
          </Paper>
        </li>
        {s.transcript.map((turn) => (
          <li key={turn.index}>
            <Paper withBorder p="xs" bg="var(--mantine-color-gray-0)" ml={{ base: 0, sm: 'xl' }} mb={6}>
              <Text size="xs" fw={700}>
                Caller · turn {turn.index}
              </Text>
              <Text size="sm">{turn.text}</Text>
            </Paper>
            <Paper withBorder p="xs">
              <Text size="xs" fw={700}>
                Agent
              </Text>
              <Text size="sm">
                {turn.interrupted ? `${turn.spokenText}… (interrupted)` : turn.reply.text}
              </Text>
            </Paper>
          </li>
        ))}
      </Stack>
      <Text size="xs" mt="xs">
        Tools, workflows and the post-call analysis are on the{' '}
        <Anchor component={Link} to={`/sessions/${s.id}`}>
          session's page
        </Anchor>
        .
      </Text>
    </>
  );
}

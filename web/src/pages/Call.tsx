import { Anchor, Code, Grid, Paper, Stack, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { Link, useParams } from 'react-router';
import { api, environmentStore, unwrap } from '../api/client';
import { backoffPolling } from '../api/polling';
import { personasQuery } from '../api/queries';
import { ErrorAlert, formatTime, PageHeader, PageLoader, StatusBadge } from '../components/ui';
import { useStoredValue } from '../store';
import { CallActions } from './calls/CallActions';
import { CallRecording } from './calls/CallRecording';
import { CallTimeline } from './calls/CallTimeline';
import { CallTranscript } from './calls/CallTranscript';
import { callDuration, callEnded, endedReasonText } from './calls/call-columns';

/** A titled box of the call's page. */
function Section({ title, children }: { title: string; children: ReactNode }) {
  return (
    <Paper withBorder p="md" component="section" aria-label={title}>
      <Title order={2} size="h5" mb="sm">
        {title}
      </Title>
      {children}
    </Paper>
  );
}

/**
 * One phone call: its numbers, status and duration; the timeline of the statuses it reached (followed
 * while it is under way), its two-channel recording, the transcript of its session; links to the
 * session and to the call's workflow in the Temporal Web UI; hang up while it is live.
 */
export default function CallPage() {
  const { id = '' } = useParams();
  const environment = useStoredValue(environmentStore);
  const call = useQuery({
    queryKey: ['call', environment, id],
    queryFn: async () =>
      unwrap(await api.GET('/api/v2/developers/calls/{id}', { params: { path: { id } } })).data,
    refetchInterval: backoffPolling((c) => c !== undefined && !callEnded(c)),
  });
  const personas = useQuery(personasQuery());
  if (call.isPending) return <PageLoader />;
  if (!call.data) return <ErrorAlert error={call.error} title="The call did not load" />;
  const c = call.data;
  const ended = callEnded(c);
  const persona = personas.data?.find((p) => p.id === c.personaId);
  return (
    <>
      <Anchor component={Link} to="/calls" size="sm">
        ← Calls
      </Anchor>
      <PageHeader
        title={`Call ${c.id}`}
        description={
          <>
            <StatusBadge status={c.status} /> {c.direction} · from <Code>{c.from}</Code> to{' '}
            <Code>{c.to}</Code> · persona{' '}
            <Anchor component={Link} to={`/personas/${c.personaId}`} underline="always">
              {persona?.name || c.personaId}
            </Anchor>{' '}
            · placed {formatTime(c.createdAt)} · {callDuration(c)}
            {ended ? ` · ended: ${endedReasonText(c.endedReason)}` : ''}
          </>
        }
        actions={<CallActions call={c} />}
      />
      <Grid gap="md">
        <Grid.Col span={{ base: 12, md: 4 }}>
          <Section title="Timeline">
            <CallTimeline call={c} />
          </Section>
        </Grid.Col>
        <Grid.Col span={{ base: 12, md: 8 }}>
          <Stack gap="md">
            <Section title="Recording">
              <CallRecording callId={c.id} endedAt={ended ? c.updatedAt : null} />
            </Section>
            <Section title="Transcript">
              <CallTranscript sessionId={c.sessionId} />
            </Section>
          </Stack>
        </Grid.Col>
      </Grid>
    </>
  );
}

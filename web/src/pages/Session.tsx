import { Anchor, Badge, Code, Group, Paper, Stack, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { Link, useParams } from 'react-router';
import { api, environmentStore, unwrap } from '../api/client';
import { backoffPolling } from '../api/polling';
import type { components } from '../api/schema';
import { ErrorAlert, formatTime, PageHeader, PageLoader, StatusBadge } from '../components/ui';
import { useStoredValue } from '../store';
import { SessionActions } from './sessions/SessionActions';
import { SessionAnalysis } from './sessions/SessionAnalysis';
import { endReasonText, sessionDuration } from './sessions/session-columns';
import { TurnRecordings } from './sessions/TurnRecording';

type Turn = components['schemas']['SessionWithTranscript']['transcript'][number];
type Action = Turn['actions'][number];

/** The knowledge chunks a turn gave the model: what its answer rested on. */
function KnowledgeLine({ action }: { action: Extract<Action, { type: 'knowledge' }> }) {
  const found = action.timedOut
    ? 'none: past the time budget, the turn went on without them'
    : `${action.chunks.length} chunk${action.chunks.length === 1 ? '' : 's'}`;
  return (
    <Stack gap={2} data-testid="action-knowledge">
      <Text size="sm">
        Knowledge: {found} · {action.durationMs} ms
      </Text>
      {action.chunks.map((c) => (
        <Text size="xs" c="dimmed" key={`${c.sourceId}:${c.ordinal}`}>
          {c.sourceName}
          {c.heading ? ` › ${c.heading}` : ''} (part {c.ordinal + 1}, score {c.score.toFixed(2)})
        </Text>
      ))}
    </Stack>
  );
}

function ActionLine({ action }: { action: Action }) {
  if (action.type === 'knowledge') return <KnowledgeLine action={action} />;
  if (action.type === 'workflow') {
    return (
      <Text size="sm" data-testid="action-workflow">
        Workflow{' '}
        <Anchor
          component={Link}
          to={`/workflows/${action.workflowId}${action.executionId ? `?execution=${action.executionId}` : ''}`}
        >
          {action.workflowName}
        </Anchor>{' '}
        <StatusBadge status={action.status} /> · {action.durationMs} ms
      </Text>
    );
  }
  return (
    <Stack gap={2} data-testid="action-tool">
      <Text size="sm">
        Tool <Code>{action.tool}</Code> <StatusBadge status={action.success ? 'completed' : 'failed'} /> ·{' '}
        {action.durationMs} ms{action.statusCode ? ` · HTTP ${action.statusCode}` : ''}
      </Text>
      <Code block style={{ maxHeight: 140, overflow: 'auto' }}>
        {`arguments: ${JSON.stringify(action.arguments)}\n${
          action.error ? `error: ${action.error}` : `result: ${JSON.stringify(action.result)}`
        }`}
      </Code>
    </Stack>
  );
}

/**
 * One session's transcript: each turn, the reply, how it was answered and the tools and workflows it
 * ran, and its recordings when the session kept them; once ended, its post-call analysis.
 */
export default function SessionPage() {
  const { id = '' } = useParams();
  const environment = useStoredValue(environmentStore);
  const session = useQuery({
    queryKey: ['session', environment, id],
    queryFn: async () =>
      unwrap(await api.GET('/api/v2/developers/sessions/{id}', { params: { path: { id } } })).data,
    refetchInterval: backoffPolling((s) => s?.status === 'active'),
  });
  const personaId = session.data?.personaId;
  const personaName = useQuery({
    queryKey: ['persona-name', personaId],
    enabled: Boolean(personaId),
    queryFn: async () =>
      unwrap(await api.GET('/api/v1/developers/personas/{id}', { params: { path: { id: personaId ?? '' } } }))
        .persona.name || personaId,
    retry: false,
  });
  if (session.isPending) return <PageLoader />;
  if (!session.data) return <ErrorAlert error={session.error} title="The session did not load" />;
  const s = session.data;
  return (
    <>
      <Anchor component={Link} to="/sessions" size="sm">
        ← Sessions
      </Anchor>
      <PageHeader
        title={`Session ${s.id}`}
        description={
          <>
            <StatusBadge status={s.status} /> persona{' '}
            <Anchor component={Link} to={`/personas/${s.personaId}`} underline="always">
              {personaName.data ?? s.personaId}
            </Anchor>
            {s.personaVersion !== null ? ` version ${s.personaVersion}` : ''} · user <Code>{s.userId}</Code> ·
            started {formatTime(s.startedAt)} · {sessionDuration(s)} · {s.turnCount}{' '}
            {s.turnCount === 1 ? 'turn' : 'turns'}
            {s.endedAt ? ` · ended ${formatTime(s.endedAt)} (${endReasonText(s.endReason)})` : ''}
          </>
        }
        actions={<SessionActions id={s.id} active={s.status === 'active'} />}
      />
      <SessionAnalysis session={s} environment={environment} />
      <Stack gap="sm" component="ol" style={{ listStyle: 'none', padding: 0 }} aria-label="Transcript">
        <li>
          <Paper withBorder p="sm">
            <Text size="xs" fw={700}>
              Agent (greeting)
            </Text>
            <Text>{s.greeting}</Text>
          </Paper>
        </li>
        {s.transcript.map((turn) => (
          <li key={turn.index}>
            <Stack gap={6}>
              <Paper withBorder p="sm" bg="var(--mantine-color-gray-0)" ml={{ base: 0, sm: 'xl' }}>
                <Text size="xs" fw={700}>
                  Caller · turn {turn.index}
                </Text>
                <Text>{turn.text}</Text>
              </Paper>
              <Paper withBorder p="sm">
                <Group gap="xs" mb={4}>
                  <Text size="xs" fw={700}>
                    Agent
                  </Text>
                  <Badge size="xs" variant="outline" color="gray.8">
                    {turn.route}
                  </Badge>
                  <Text size="xs">{turn.latencyMs} ms</Text>
                </Group>
                <Text>{turn.reply.text}</Text>
                {turn.error ? (
                  <Text size="sm" c="red.9">
                    {turn.error}
                  </Text>
                ) : null}
                {turn.interrupted ? (
                  <Text size="sm" c="dimmed">
                    Interrupted: the caller heard “{turn.spokenText}”
                  </Text>
                ) : null}
                {s.recording ? <TurnRecordings sessionId={s.id} index={turn.index} /> : null}
                {turn.actions.length ? (
                  <Stack gap={6} mt="xs">
                    <Title order={2} size="h6">
                      Actions
                    </Title>
                    {turn.actions.map((action, i) => (
                      // biome-ignore lint/suspicious/noArrayIndexKey: actions are in order and never reordered
                      <ActionLine key={i} action={action} />
                    ))}
                  </Stack>
                ) : null}
              </Paper>
            </Stack>
          </li>
        ))}
      </Stack>
    </>
  );
}

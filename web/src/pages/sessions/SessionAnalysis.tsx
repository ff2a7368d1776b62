import { Badge, Code, Group, Paper, Stack, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { ApiCallError, api, type Environment, unwrap } from '../../api/client';
import { backoffPolling } from '../../api/polling';
import type { components } from '../../api/schema';
import { type Column, DataTable } from '../../components/DataTable';
import { ErrorAlert, formatTime, GOOD, StatusBadge } from '../../components/ui';

type Analysis = components['schemas']['SessionAnalysis'];
type Session = components['schemas']['SessionWithTranscript'];

/** How long after a session ends its analysis may still be on its way (the outbox writes it). */
const ANALYSIS_DUE_MS = 60_000;

const endedRecently = (s: Session) =>
  s.endedAt !== null && Date.now() - new Date(s.endedAt).getTime() < ANALYSIS_DUE_MS;

/** The session's analysis; null when it has none (404: no `analysis` setting, or not written yet). */
async function fetchAnalysis(id: string): Promise<Analysis | null> {
  try {
    return unwrap(await api.GET('/api/v2/developers/sessions/{id}/analysis', { params: { path: { id } } }))
      .data;
  } catch (e) {
    if (e instanceof ApiCallError && e.status === 404) return null;
    throw e;
  }
}

type Field = [name: string, value: unknown];
const FIELD_COLUMNS: Column<Field>[] = [
  { header: 'Field', cell: ([name]) => <Code>{name}</Code> },
  {
    header: 'Value',
    cell: ([, value]) => (typeof value === 'string' ? value : <Code>{JSON.stringify(value)}</Code>),
    style: { overflowWrap: 'anywhere' },
  },
];

function Completed({ analysis }: { analysis: Analysis }) {
  const fields = Object.entries(analysis.data ?? {});
  return (
    <Stack gap="xs">
      {analysis.summary !== null ? (
        <Text data-testid="analysis-summary">
          <b>Summary:</b> {analysis.summary}
        </Text>
      ) : null}
      {analysis.success ? (
        <Group gap="xs" data-testid="analysis-success" wrap="nowrap" align="flex-start">
          <Badge
            variant="outline"
            color={analysis.success.passed ? GOOD : 'red.9'}
            data-passed={analysis.success.passed}
          >
            {analysis.success.passed ? 'passed' : 'failed'}
          </Badge>
          <Text size="sm">{analysis.success.reason}</Text>
        </Group>
      ) : null}
      {analysis.data !== null ? (
        fields.length > 0 ? (
          <DataTable label="Extracted data" rows={fields} columns={FIELD_COLUMNS} rowKey={([name]) => name} />
        ) : (
          <Text size="sm" c="dimmed">
            No data fields were told in the call.
          </Text>
        )
      ) : null}
    </Stack>
  );
}

function AnalysisBody({ analysis, session }: { analysis: Analysis | null; session: Session }) {
  if (analysis === null) {
    return (
      <Text size="sm" c="dimmed">
        {endedRecently(session)
          ? 'No analysis yet: it is written shortly after the session ends when its persona has an analysis setting.'
          : 'No analysis: this session’s persona has no analysis setting.'}
      </Text>
    );
  }
  if (analysis.status === 'pending') {
    return <Text size="sm">The model is analysing the call; this updates when it is done.</Text>;
  }
  if (analysis.status !== 'completed') {
    return <Text size="sm">{analysis.error ?? 'The analysis has no result.'}</Text>;
  }
  return <Completed analysis={analysis} />;
}

/**
 * An ended session's post-call analysis (docs/sessions.md "Post-call analysis"): its status
 * (pending, completed, failed, skipped, or none), the summary, the success verdict with its reason
 * and the extracted data, followed while pending or still on its way.
 */
export function SessionAnalysis({ session, environment }: { session: Session; environment: Environment }) {
  const analysis = useQuery({
    queryKey: ['session', environment, session.id, 'analysis'],
    enabled: session.status !== 'active',
    queryFn: () => fetchAnalysis(session.id),
    refetchInterval: backoffPolling((a: Analysis | null | undefined) =>
      a === null ? endedRecently(session) : a?.status === 'pending',
    ),
  });
  if (session.status === 'active') return null;
  const a = analysis.data;
  return (
    <Paper
      withBorder
      p="sm"
      mb="md"
      component="section"
      aria-labelledby="analysis-heading"
      data-testid="session-analysis"
    >
      <Group gap="xs" mb="xs">
        <Title order={2} size="h5" id="analysis-heading">
          Post-call analysis
        </Title>
        {a !== undefined ? <StatusBadge status={a?.status ?? 'none'} /> : null}
        {a?.completedAt ? (
          <Text size="xs" c="dimmed">
            {formatTime(a.completedAt)}
            {a.attempts > 1 ? ` · after ${a.attempts} attempts` : ''}
          </Text>
        ) : null}
      </Group>
      <ErrorAlert error={analysis.error} title="The analysis did not load" />
      {a !== undefined ? <AnalysisBody analysis={a} session={session} /> : null}
    </Paper>
  );
}

import { Anchor, Group, Paper, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { Link, useParams } from 'react-router';
import { api, unwrap } from '../../api/client';
import { backoffPolling } from '../../api/polling';
import type { components } from '../../api/schema';
import { ErrorAlert, formatTime, PageHeader, PageLoader, StatusBadge } from '../../components/ui';
import { CheckResults, TestResults } from './AutomatedResults';
import { DueTimer } from './DueTimer';
import { ReviewDecision } from './ReviewDecision';
import { SubmittedManifest } from './SubmittedManifest';

type ReviewDetail = components['schemas']['ReviewDetail'];

/** A pending review whose automated results are still coming is followed until they land. */
const resultsPending = (d: ReviewDetail | undefined) =>
  d?.review.status === 'pending' &&
  (d.review.kind === 'persona'
    ? !d.review.tests || d.review.tests.status === 'running'
    : d.checks !== null && d.checks.passed === null);

/** The review's facts: status, submission, the overdue timer while pending. */
function ReviewFacts({ detail }: { detail: ReviewDetail }) {
  const { review } = detail;
  return (
    <Group gap="lg" wrap="wrap" align="flex-start">
      <Stack gap={2}>
        <Text size="xs" c="dimmed">
          Status
        </Text>
        <StatusBadge status={review.status} />
      </Stack>
      <Stack gap={2}>
        <Text size="xs" c="dimmed">
          Submitted
        </Text>
        <Text size="sm">{formatTime(review.submittedAt)}</Text>
      </Stack>
      {review.status === 'pending' ? (
        <Stack gap={2}>
          <Text size="xs" c="dimmed">
            Overdue timer
          </Text>
          <DueTimer dueBy={review.dueBy} overdue={review.overdue} />
        </Stack>
      ) : null}
      <Stack gap={2}>
        <Text size="xs" c="dimmed">
          Workflow
        </Text>
        <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
          {review.workflowId}
        </Text>
      </Stack>
    </Group>
  );
}

/**
 * One review of the queue: what was submitted (the persona's manifest, or the marketplace item's
 * version), its automated results (a persona's tests, an item's checks), the overdue timer, and the
 * decision with notes.
 */
export default function ReviewPage() {
  const { id = '' } = useParams();
  const detail = useQuery({
    queryKey: ['review', id],
    queryFn: async () => unwrap(await api.GET('/api/admin/reviews/{id}', { params: { path: { id } } })),
    refetchInterval: backoffPolling<ReviewDetail>(resultsPending),
  });
  const back = (
    <Anchor component={Link} to="/reviews" size="sm">
      ← Reviews
    </Anchor>
  );
  if (detail.isPending) return <PageLoader />;
  if (!detail.data) {
    return (
      <>
        {back}
        <ErrorAlert error={detail.error} title="The review did not load" />
      </>
    );
  }
  const { review } = detail.data;
  const persona = review.kind === 'persona';
  return (
    <Stack gap="md">
      {back}
      <PageHeader
        title={review.name || review.id}
        description={
          persona
            ? `Persona ${review.id}, submission ${review.submission}, account ${review.accountId}`
            : `Marketplace item ${review.id}, version ${detail.data.version ?? '—'}, publisher ${review.accountId}`
        }
      />
      <ErrorAlert error={detail.error} title="The review did not refresh" />
      <ReviewFacts detail={detail.data} />
      <SimpleGrid cols={{ base: 1, md: 2 }} spacing="md">
        <Paper withBorder p="md" data-testid="automated-results">
          <Title order={2} size="h4" mb="xs">
            {persona ? 'Test results' : 'Automated checks'}
          </Title>
          {persona ? <TestResults tests={review.tests} /> : <CheckResults checks={detail.data.checks} />}
        </Paper>
        <ReviewDecision detail={detail.data} />
      </SimpleGrid>
      <SubmittedManifest detail={detail.data} />
    </Stack>
  );
}

import { Alert, Button, Group, Paper, Stack, Text, Textarea, Title } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, unwrap } from '../../api/client';
import type { components } from '../../api/schema';
import { ErrorAlert, formatTime } from '../../components/ui';

type ReviewDetail = components['schemas']['ReviewDetail'];
type Decision = 'approve' | 'reject';

/** Sends the decision to the review's own endpoint (the operator API's, as for ADMIN_TOKEN). */
async function sendDecision(review: ReviewDetail['review'], decision: Decision, notes: string) {
  const body = notes ? { decision, notes } : { decision };
  const path = { id: review.id };
  if (review.kind === 'persona') {
    unwrap(await api.POST('/api/admin/personas/{id}/review', { params: { path }, body }));
  } else {
    unwrap(await api.POST('/api/admin/marketplace/items/{id}/review', { params: { path }, body }));
  }
}

/** Why a decision would be refused now (the automated results are still coming), or null. */
export function decisionBlocked(detail: ReviewDetail): string | null {
  if (detail.review.tests?.status === 'running') return "The persona's tests are still running.";
  if (detail.checks && detail.checks.passed === null) return 'The automated checks are still running.';
  return null;
}

/** A decided review: approved or rejected, when, and the notes; or withdrawn by its submitter. */
function Decided({ review }: { review: ReviewDetail['review'] }) {
  if (review.status === 'withdrawn') {
    return (
      <Alert color="gray" title="Withdrawn" data-testid="review-outcome">
        The submitter withdrew it: nothing to decide.
      </Alert>
    );
  }
  return (
    <Alert
      color={review.status === 'approved' ? 'green' : 'red'}
      title={`Review ${review.status}`}
      data-testid="review-outcome"
    >
      <Text size="sm">Decided {formatTime(review.decidedAt)}.</Text>
      {review.notes ? (
        <Text size="sm" mt={4} style={{ whiteSpace: 'pre-line' }}>
          Notes: {review.notes}
        </Text>
      ) : null}
    </Alert>
  );
}

/** Approve or reject a pending review, with notes for the submitter; a decided one shows its outcome. */
export function ReviewDecision({ detail }: { detail: ReviewDetail }) {
  const queryClient = useQueryClient();
  const [notes, setNotes] = useState('');
  const { review } = detail;
  const decide = useMutation({
    mutationFn: (decision: Decision) => sendDecision(review, decision, notes.trim()),
    onSettled: () =>
      Promise.all([
        queryClient.invalidateQueries({ queryKey: ['reviews'] }),
        queryClient.invalidateQueries({ queryKey: ['review', review.workflowId] }),
      ]),
  });
  if (review.status !== 'pending') return <Decided review={review} />;
  const blocked = decisionBlocked(detail);
  const submitter = review.kind === 'persona' ? 'developer' : 'publisher';
  return (
    <Paper withBorder p="md">
      <Stack gap="sm">
        <Title order={2} size="h4">
          Decision
        </Title>
        <ErrorAlert error={decide.error} title="The decision was not taken" />
        {blocked ? (
          <Text size="sm" role="status">
            {blocked} This page follows them; decide once they end.
          </Text>
        ) : null}
        <Textarea
          label="Notes"
          description={`Shown to the ${submitter} with the decision (at most 2000 characters)`}
          autosize
          minRows={3}
          maxLength={2000}
          value={notes}
          onChange={(e) => setNotes(e.currentTarget.value)}
        />
        <Group gap="xs">
          <Button
            color="green.9"
            onClick={() => decide.mutate('approve')}
            loading={decide.isPending && decide.variables === 'approve'}
            disabled={blocked !== null || decide.isPending}
          >
            Approve
          </Button>
          <Button
            color="red.9"
            variant="outline"
            onClick={() => decide.mutate('reject')}
            loading={decide.isPending && decide.variables === 'reject'}
            disabled={blocked !== null || decide.isPending}
          >
            Reject
          </Button>
        </Group>
      </Stack>
    </Paper>
  );
}

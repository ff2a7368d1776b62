import { Group, List, Paper, Stack, Text, Title } from '@mantine/core';
import { formatTime, StatusBadge } from '../../components/ui';
import type { ItemVersion } from './usePublishedItem';

/** The automated checks' state: still running, passed, or found problems (which never reject by themselves). */
function checksText(v: ItemVersion): string {
  if (v.checksPassed === null) return 'running…';
  return v.checksPassed ? 'passed' : 'found problems (the operator reads them and decides)';
}

/** The operator's part: waiting, or the decision and when. */
function decisionText(v: ItemVersion): string {
  switch (v.status) {
    case 'pending_review':
      return 'waiting for an operator (usually 2–5 business days)';
    case 'approved':
      return `approved ${formatTime(v.decidedAt)}: live`;
    case 'superseded':
      return `approved ${formatTime(v.decidedAt)}; a newer version replaced it`;
    case 'rejected':
      return `rejected ${formatTime(v.decidedAt)}`;
    case 'withdrawn':
      return 'withdrawn before a decision (a newer version was submitted, or the item was removed)';
  }
}

/** The notes of a version: the checks' findings, and the operator's notes. */
export function ReviewNotes({ version }: { version: ItemVersion }) {
  return (
    <>
      {version.reviewNotes.length ? (
        <List size="sm">
          {version.reviewNotes.map((note) => (
            <List.Item key={note} style={{ overflowWrap: 'anywhere' }}>
              {note}
            </List.Item>
          ))}
        </List>
      ) : null}
      {version.decisionNotes ? <Text size="sm">Operator’s notes: {version.decisionNotes}</Text> : null}
    </>
  );
}

/** The latest version's review, step by step: submitted, automated checks (and findings), the operator's decision. */
export function ReviewProgress({ version, following }: { version: ItemVersion; following: boolean }) {
  return (
    <Paper withBorder p="md" component="section" aria-labelledby="review-title" data-testid="review-progress">
      <Group justify="space-between" mb="xs">
        <Title order={2} size="h4" id="review-title">
          Review of version {version.version}
        </Title>
        <StatusBadge status={version.status} />
      </Group>
      <Stack gap="xs" aria-live="polite">
        <List type="ordered" size="sm" spacing={4}>
          <List.Item>Submitted {formatTime(version.submittedAt)}</List.Item>
          <List.Item>Automated checks: {checksText(version)}</List.Item>
          <List.Item>Decision: {decisionText(version)}</List.Item>
        </List>
        <ReviewNotes version={version} />
        {following ? <Text size="xs">This page follows the review and updates on its own.</Text> : null}
        <Text size="xs">Review workflow {version.reviewId} (Temporal Web UI).</Text>
      </Stack>
    </Paper>
  );
}

import { Anchor, Stack, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { api, unwrap } from '../api/client';
import { backoffPolling } from '../api/polling';
import type { components } from '../api/schema';
import { type Column, DataTable } from '../components/DataTable';
import { ListBody } from '../components/ListPage';
import { formatTime, PageHeader } from '../components/ui';
import { DueTimer } from './reviews/DueTimer';

type PendingReview = components['schemas']['PendingReview'];

const reviewLink = (r: PendingReview) => `/reviews/${encodeURIComponent(r.workflowId)}`;

const nameColumn: Column<PendingReview> = {
  header: 'Name',
  cell: (r) => (
    <>
      <Anchor component={Link} to={reviewLink(r)}>
        {r.name || r.id}
      </Anchor>
      <Text size="xs" c="dimmed" style={{ overflowWrap: 'anywhere' }}>
        {r.id} · {r.accountId}
      </Text>
    </>
  ),
};
const submittedColumn: Column<PendingReview> = {
  header: 'Submitted',
  cell: (r) => formatTime(r.submittedAt),
};
const dueColumn: Column<PendingReview> = {
  header: 'Overdue timer',
  cell: (r) => <DueTimer dueBy={r.dueBy} overdue={r.overdue} />,
};

/** A persona review's tests in a word or two. */
function testsText(tests: PendingReview['tests']): string {
  if (!tests) return 'not looked for yet';
  if (tests.status === 'none') return 'no scenarios';
  if (tests.status === 'running') return `running (${tests.total})`;
  return `${tests.status}: ${tests.passed} passed, ${tests.failed} failed`;
}

const PERSONA_COLUMNS: Column<PendingReview>[] = [
  nameColumn,
  submittedColumn,
  dueColumn,
  { header: 'Tests', cell: (r) => testsText(r.tests) },
];
const MARKETPLACE_COLUMNS: Column<PendingReview>[] = [nameColumn, submittedColumn, dueColumn];

/** One kind's pending reviews, oldest first, or that there are none. */
function ReviewTable(props: {
  title: string;
  label: string;
  rows: PendingReview[];
  columns: Column<PendingReview>[];
}) {
  return (
    <Stack gap="xs">
      <Title order={2} size="h3">
        {props.title}
      </Title>
      {props.rows.length === 0 ? (
        <Text c="dimmed" size="sm">
          Nothing waiting for a decision.
        </Text>
      ) : (
        <DataTable
          label={props.label}
          minWidth={640}
          striped
          highlightOnHover
          rows={props.rows}
          columns={props.columns}
          rowKey={(r) => r.workflowId}
          rowProps={(r) => ({ 'data-testid': `review-${r.id}` })}
        />
      )}
    </Stack>
  );
}

/**
 * The review queue (operators and reviewers): pending persona and marketplace reviews, oldest first,
 * each with its overdue timer; a review's page shows what was submitted and takes the decision.
 */
export default function ReviewsPage() {
  const reviews = useQuery({
    queryKey: ['reviews'],
    queryFn: async () => unwrap(await api.GET('/api/admin/reviews')).reviews,
    // while a persona's tests run, follow them; the list also refreshes on every visit
    refetchInterval: backoffPolling<PendingReview[]>(
      (data) => !!data?.some((r) => r.tests?.status === 'running'),
    ),
  });
  return (
    <>
      <PageHeader
        title="Reviews"
        description="Pending persona and marketplace reviews, oldest first. A review is due 5 business days after submission; past that it is overdue and still waits for a decision."
      />
      <ListBody
        items={reviews.data}
        pending={reviews.isPending}
        error={reviews.error}
        empty="No reviews are waiting: every submission is decided."
      >
        {(items) => (
          <Stack gap="xl">
            <ReviewTable
              title="Personas"
              label="Pending persona reviews"
              rows={items.filter((r) => r.kind === 'persona')}
              columns={PERSONA_COLUMNS}
            />
            <ReviewTable
              title="Marketplace"
              label="Pending marketplace reviews"
              rows={items.filter((r) => r.kind === 'marketplace_item')}
              columns={MARKETPLACE_COLUMNS}
            />
          </Stack>
        )}
      </ListBody>
    </>
  );
}

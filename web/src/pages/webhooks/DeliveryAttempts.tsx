import { Anchor, Button, Code, Group, Stack, Text } from '@mantine/core';
import { useMutation, useQuery } from '@tanstack/react-query';
import { api, environmentStore, unwrap } from '../../api/client';
import { backoffPolling } from '../../api/polling';
import type { components } from '../../api/schema';
import { type Column, DataTable } from '../../components/DataTable';
import { ErrorAlert, formatTime, PageLoader, StatusBadge } from '../../components/ui';
import { loadConsoleConfig, temporalExecutionUrl } from '../../config';
import { useStoredValue } from '../../store';

type Attempt = components['schemas']['DeliveryAttempt'];

const ATTEMPT_COLUMNS: Column<Attempt>[] = [
  { header: '#', cell: (a) => a.attempt },
  { header: 'When', cell: (a) => formatTime(a.attemptedAt) },
  {
    header: 'Result',
    cell: (a) => (
      <>
        <StatusBadge status={a.success ? 'delivered' : 'failed'} />{' '}
        {a.statusCode !== null ? `HTTP ${a.statusCode}` : (a.error ?? '')}
      </>
    ),
  },
  { header: 'Latency', cell: (a) => `${a.latencyMs} ms` },
  {
    header: 'Response',
    cell: (a) => (
      <Text size="xs" ff="monospace" style={{ wordBreak: 'break-all' }}>
        {a.responseBody ?? a.error ?? ''}
      </Text>
    ),
  },
];

/**
 * One delivery opened in the log: every attempt with its response, the event as sent, and a retry
 * (not while pending: the delivery's own schedule retries it, and the API refuses a second one).
 */
export function DeliveryAttempts(props: {
  webhookId: string;
  deliveryId: string;
  /** A retry was made: a new delivery of the same event, `replayOf` this one. */
  onRetried(deliveryId: string): void;
}) {
  const environment = useStoredValue(environmentStore);
  const path = { id: props.webhookId, deliveryId: props.deliveryId };
  const detail = useQuery({
    queryKey: ['webhook', environment, props.webhookId, 'delivery', props.deliveryId],
    queryFn: async () =>
      unwrap(await api.GET('/api/v2/developers/webhooks/{id}/logs/{deliveryId}', { params: { path } })).data,
    refetchInterval: backoffPolling((d) => d?.status === 'pending'),
  });
  const retry = useMutation({
    mutationFn: async () =>
      unwrap(await api.POST('/api/v2/developers/webhooks/{id}/logs/{deliveryId}/retry', { params: { path } }))
        .data,
    onSuccess: () => props.onRetried(props.deliveryId),
  });
  const config = useQuery({ queryKey: ['console-config'], queryFn: loadConsoleConfig, staleTime: Infinity });
  if (detail.isPending) return <PageLoader />;
  if (!detail.data) return <ErrorAlert error={detail.error} />;
  const d = detail.data;
  // the delivery's workflow (its retries and timers) has the delivery's id
  const temporalUrl = config.data ? temporalExecutionUrl(config.data, d.id) : null;
  return (
    <Stack gap="sm" py="xs">
      <Group justify="space-between">
        <Text size="sm">
          Event <Code>{d.eventId}</Code>
          {d.nextAttemptAt ? ` · next attempt ${formatTime(d.nextAttemptAt)}` : ''}
        </Text>
        <Group gap="xs">
          {temporalUrl ? (
            <Anchor
              href={temporalUrl}
              target="_blank"
              rel="noopener"
              size="sm"
              data-testid="delivery-temporal-link"
            >
              Open in Temporal
            </Anchor>
          ) : null}
          {d.status === 'pending' ? (
            // the API refuses to retry a pending delivery: its own schedule retries it
            <Text size="sm" data-testid="retried-automatically">
              Retried automatically while pending
            </Text>
          ) : (
            <Button size="xs" variant="default" onClick={() => retry.mutate()} loading={retry.isPending}>
              Retry delivery
            </Button>
          )}
        </Group>
      </Group>
      <ErrorAlert error={retry.error} title="Not retried" />
      {retry.data ? (
        <Text size="sm" role="status">
          Retried as delivery <Code>{retry.data.id}</Code>.
        </Text>
      ) : null}
      <DataTable
        label="Attempts"
        withTableBorder
        data-testid="attempts"
        rows={d.attemptLog}
        columns={ATTEMPT_COLUMNS}
        rowKey={(a) => a.attempt}
      />
      <details>
        <summary>Event as sent</summary>
        <Code block>{JSON.stringify(d.event, null, 2)}</Code>
      </details>
    </Stack>
  );
}

import { Button, Group, SegmentedControl, Title, UnstyledButton } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { api, environmentStore, unwrap } from '../../api/client';
import { backoffPolling } from '../../api/polling';
import type { components } from '../../api/schema';
import { type Column, DataTable } from '../../components/DataTable';
import { ListBody } from '../../components/ListPage';
import { formatTime, StatusBadge } from '../../components/ui';
import { useStoredValue } from '../../store';
import { DeliveryAttempts } from './DeliveryAttempts';

type Delivery = components['schemas']['DeliveryLogEntry'];
type StatusFilter = 'all' | Delivery['status'];

/** The newest 50 deliveries of a webhook, followed while any is pending (being retried). */
function useDeliveries(webhookId: string, status: StatusFilter) {
  const environment = useStoredValue(environmentStore);
  return useQuery({
    queryKey: ['webhook', environment, webhookId, 'logs', status],
    queryFn: async () =>
      unwrap(
        await api.GET('/api/v2/developers/webhooks/{id}/logs', {
          params: {
            path: { id: webhookId },
            query: { limit: 50, status: status === 'all' ? undefined : status },
          },
        }),
      ).data,
    refetchInterval: backoffPolling((list) => Boolean(list?.some((d) => d.status === 'pending'))),
  });
}

/** The delivery log's columns; a delivery's event type opens (and closes) its attempts. */
function deliveryColumns(open: string | null, onToggle: (id: string) => void): Column<Delivery>[] {
  return [
    {
      header: 'Event',
      cell: (d) => (
        <>
          <UnstyledButton
            onClick={() => onToggle(d.id)}
            aria-expanded={open === d.id}
            aria-controls={`attempts-${d.id}`}
            style={{ textDecoration: 'underline', color: 'var(--mantine-color-anchor)' }}
          >
            {d.eventType}
          </UnstyledButton>
          {d.test ? ' (test)' : ''}
          {d.replayOf ? ' (retry)' : ''}
        </>
      ),
    },
    { header: 'Status', cell: (d) => <StatusBadge status={d.status} /> },
    { header: 'Attempts', cell: (d) => d.attempts },
    {
      header: 'Last response',
      cell: (d) => (
        <>
          {d.statusCode ? `HTTP ${d.statusCode}` : (d.error ?? '—')}
          {d.latencyMs !== undefined ? ` · ${d.latencyMs} ms` : ''}
        </>
      ),
    },
    { header: 'Created', cell: (d) => formatTime(d.createdAt) },
  ];
}

/** A webhook's delivery log: filter by status, refresh, open a delivery to see every attempt and retry it. */
export function DeliveryLog({
  webhookId,
  onRefresh,
  onRetried,
}: {
  webhookId: string;
  onRefresh(): void;
  /** A delivery was retried by hand (the log refreshes too). */
  onRetried(deliveryId: string): void;
}) {
  const [status, setStatus] = useState<StatusFilter>('all');
  const [open, setOpen] = useState<string | null>(null);
  const logs = useDeliveries(webhookId, status);
  const columns = deliveryColumns(open, (id) => setOpen(open === id ? null : id));
  return (
    <>
      <Group justify="space-between" align="flex-end">
        <Title order={2} size="h3">
          Delivery log
        </Title>
        <Group gap="xs">
          <Button
            size="xs"
            variant="default"
            onClick={onRefresh}
            loading={logs.isFetching && !logs.isPending}
          >
            Refresh
          </Button>
          <SegmentedControl
            size="xs"
            aria-label="Delivery status"
            value={status}
            onChange={(v) => setStatus(v as StatusFilter)}
            data={['all', 'delivered', 'failed', 'pending']}
          />
        </Group>
      </Group>
      <ListBody
        items={logs.data}
        pending={logs.isPending}
        error={logs.error}
        empty="No deliveries yet. Send a test to see one."
      >
        {(rows) => (
          <DataTable
            label="Deliveries"
            minWidth={720}
            rows={rows}
            columns={columns}
            rowKey={(d) => d.id}
            rowProps={(d) => ({ 'data-testid': `delivery-${d.id}` })}
            details={(d) =>
              open === d.id
                ? {
                    id: `attempts-${d.id}`,
                    content: (
                      <DeliveryAttempts
                        webhookId={webhookId}
                        deliveryId={d.id}
                        onRetried={(id) => {
                          onRetried(id);
                          onRefresh();
                        }}
                      />
                    ),
                  }
                : null
            }
          />
        )}
      </ListBody>
    </>
  );
}

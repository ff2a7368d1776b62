import {
  Alert,
  Anchor,
  Button,
  Code,
  Group,
  Modal,
  Paper,
  SegmentedControl,
  SimpleGrid,
  Stack,
  Switch,
  Table,
  Text,
  Title,
  UnstyledButton,
} from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Fragment, useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { api, environmentStore, unwrap } from '../api/client';
import type { components } from '../api/schema';
import { SecretDialog } from '../components/SecretDialog';
import {
  Empty,
  ErrorAlert,
  formatNumber,
  formatTime,
  PageHeader,
  PageLoader,
  ScrollTable,
  StatusBadge,
} from '../components/ui';
import { useStoredValue } from '../store';

type DeliveryStatus = components['schemas']['DeliveryLogEntry']['status'];

function Stat({ label, value }: { label: string; value: string }) {
  return (
    <Paper withBorder p="sm">
      <Text size="xs" tt="uppercase" fw={700}>
        {label}
      </Text>
      <Text size="xl" fw={700} data-testid={`stat-${label.toLowerCase().replace(/\s+/g, '-')}`}>
        {value}
      </Text>
    </Paper>
  );
}

/** One webhook: statistics, send a test, rotate the secret, enable/disable, and its delivery log with every attempt. */
export default function WebhookPage() {
  const { id = '' } = useParams();
  const environment = useStoredValue(environmentStore);
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const [statusFilter, setStatusFilter] = useState<'all' | DeliveryStatus>('all');
  const [openDelivery, setOpenDelivery] = useState<string | null>(null);
  const [rotated, setRotated] = useState<{ secret: string; previousSecretExpiresAt: string } | null>(null);
  const [deleting, setDeleting] = useState(false);

  const webhook = useQuery({
    queryKey: ['webhook', environment, id],
    queryFn: async () =>
      unwrap(await api.GET('/api/v2/developers/webhooks/{id}', { params: { path: { id } } })).data,
  });
  const logs = useQuery({
    queryKey: ['webhook', environment, id, 'logs', statusFilter],
    queryFn: async () =>
      unwrap(
        await api.GET('/api/v2/developers/webhooks/{id}/logs', {
          params: {
            path: { id },
            query: { limit: 50, status: statusFilter === 'all' ? undefined : statusFilter },
          },
        }),
      ).data,
    // pending deliveries are being retried: follow them
    refetchInterval: (query) => (query.state.data?.some((d) => d.status === 'pending') ? 2000 : false),
  });
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['webhook', environment, id] });

  const test = useMutation({
    mutationFn: async () =>
      unwrap(await api.POST('/api/v2/developers/webhooks/{id}/test', { params: { path: { id } } })).data,
    onSuccess: refresh,
  });
  const rotate = useMutation({
    mutationFn: async () =>
      unwrap(await api.POST('/api/v2/developers/webhooks/{id}/rotate-secret', { params: { path: { id } } }))
        .data,
    onSuccess: (data) => setRotated(data),
  });
  const toggle = useMutation({
    mutationFn: async (enabled: boolean) =>
      unwrap(
        await api.PUT('/api/v2/developers/webhooks/{id}', { params: { path: { id } }, body: { enabled } }),
      ),
    onSuccess: refresh,
  });
  const remove = useMutation({
    mutationFn: async () =>
      unwrap(await api.DELETE('/api/v2/developers/webhooks/{id}', { params: { path: { id } } })),
    onSuccess: () => {
      queryClient.invalidateQueries({ queryKey: ['webhooks'] });
      navigate('/webhooks');
    },
  });

  if (webhook.isPending) return <PageLoader />;
  if (!webhook.data) return <ErrorAlert error={webhook.error} title="The webhook did not load" />;
  const w = webhook.data;
  const stats = w.deliveryStats;

  return (
    <>
      <Anchor component={Link} to="/webhooks" size="sm">
        ← Webhooks
      </Anchor>
      <PageHeader
        title={w.name}
        description={
          <>
            <StatusBadge status={w.status} /> <span style={{ wordBreak: 'break-all' }}>{w.url}</span>
          </>
        }
        actions={
          <>
            <Button onClick={() => test.mutate()} loading={test.isPending}>
              Send test
            </Button>
            <Button variant="default" onClick={() => rotate.mutate()} loading={rotate.isPending}>
              Rotate secret
            </Button>
            <Button variant="outline" color="red.8" onClick={() => setDeleting(true)}>
              Delete
            </Button>
          </>
        }
      />
      <ErrorAlert error={test.error ?? rotate.error ?? toggle.error} title="That did not work" />
      {test.data ? (
        <Alert
          color={test.data.delivered ? 'green' : 'red'}
          role="status"
          mb="md"
          title={test.data.delivered ? 'Test delivered' : 'Test not delivered'}
          data-testid="test-result"
        >
          {test.data.statusCode !== null ? `HTTP ${test.data.statusCode}` : 'No response'}
          {test.data.latencyMs !== null ? ` in ${test.data.latencyMs} ms` : ''}
          {test.data.error ? ` · ${test.data.error}` : ''} · delivery <Code>{test.data.deliveryId}</Code>
        </Alert>
      ) : null}

      <Stack gap="md">
        <Group gap="lg">
          <Switch
            label="Enabled"
            checked={w.enabled}
            onChange={(e) => toggle.mutate(e.currentTarget.checked)}
            disabled={toggle.isPending}
          />
          <Text size="sm">Events: {w.events.join(', ')}</Text>
        </Group>
        <SimpleGrid cols={{ base: 2, sm: 5 }} spacing="sm">
          <Stat label="Deliveries" value={formatNumber(stats.total)} />
          <Stat label="Delivered" value={formatNumber(stats.successful)} />
          <Stat label="Failed" value={formatNumber(stats.failed)} />
          <Stat label="Pending" value={formatNumber(stats.pending)} />
          <Stat label="Avg latency" value={`${formatNumber(stats.averageLatencyMs)} ms`} />
        </SimpleGrid>

        <Group justify="space-between" align="flex-end">
          <Title order={2} size="h3">
            Delivery log
          </Title>
          <Group gap="xs">
            <Button
              size="xs"
              variant="default"
              onClick={refresh}
              loading={logs.isFetching && !logs.isPending}
            >
              Refresh
            </Button>
            <SegmentedControl
              size="xs"
              aria-label="Delivery status"
              value={statusFilter}
              onChange={(v) => setStatusFilter(v as typeof statusFilter)}
              data={['all', 'delivered', 'failed', 'pending']}
            />
          </Group>
        </Group>
        <ErrorAlert error={logs.error} />
        {logs.isPending ? (
          <PageLoader />
        ) : logs.data?.length === 0 ? (
          <Empty>No deliveries yet. Send a test to see one.</Empty>
        ) : (
          <ScrollTable minWidth={720}>
            <Table aria-label="Deliveries">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Event</Table.Th>
                  <Table.Th>Status</Table.Th>
                  <Table.Th>Attempts</Table.Th>
                  <Table.Th>Last response</Table.Th>
                  <Table.Th>Created</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {logs.data?.map((d) => (
                  <Fragment key={d.id}>
                    <Table.Tr data-testid={`delivery-${d.id}`}>
                      <Table.Td>
                        <UnstyledButton
                          onClick={() => setOpenDelivery(openDelivery === d.id ? null : d.id)}
                          aria-expanded={openDelivery === d.id}
                          aria-controls={`attempts-${d.id}`}
                          style={{ textDecoration: 'underline', color: 'var(--mantine-color-anchor)' }}
                        >
                          {d.eventType}
                        </UnstyledButton>
                        {d.test ? ' (test)' : ''}
                        {d.replayOf ? ' (retry)' : ''}
                      </Table.Td>
                      <Table.Td>
                        <StatusBadge status={d.status} />
                      </Table.Td>
                      <Table.Td>{d.attempts}</Table.Td>
                      <Table.Td>
                        {d.statusCode ? `HTTP ${d.statusCode}` : (d.error ?? '—')}
                        {d.latencyMs !== undefined ? ` · ${d.latencyMs} ms` : ''}
                      </Table.Td>
                      <Table.Td>{formatTime(d.createdAt)}</Table.Td>
                    </Table.Tr>
                    {openDelivery === d.id ? (
                      <Table.Tr>
                        <Table.Td colSpan={5} id={`attempts-${d.id}`}>
                          <DeliveryDetail webhookId={id} deliveryId={d.id} onRetried={refresh} />
                        </Table.Td>
                      </Table.Tr>
                    ) : null}
                  </Fragment>
                ))}
              </Table.Tbody>
            </Table>
          </ScrollTable>
        )}
      </Stack>

      <SecretDialog
        secret={rotated?.secret ?? null}
        title="The new signing secret"
        note={
          rotated
            ? `Deliveries are signed with the new secret from now on. The previous secret stays valid until ${formatTime(rotated.previousSecretExpiresAt)}: switch your endpoint before then. Shown only now.`
            : ''
        }
        onClose={() => setRotated(null)}
      />
      <Modal opened={deleting} onClose={() => setDeleting(false)} title="Delete this webhook?">
        <Stack>
          <Text>{w.name} stops receiving events. Its delivery log is deleted with it.</Text>
          <ErrorAlert error={remove.error} />
          <Group justify="flex-end">
            <Button variant="default" onClick={() => setDeleting(false)}>
              Cancel
            </Button>
            <Button color="red.8" onClick={() => remove.mutate()} loading={remove.isPending}>
              Delete webhook
            </Button>
          </Group>
        </Stack>
      </Modal>
    </>
  );
}

function DeliveryDetail(props: { webhookId: string; deliveryId: string; onRetried(): void }) {
  const environment = useStoredValue(environmentStore);
  const detail = useQuery({
    queryKey: ['webhook', environment, props.webhookId, 'delivery', props.deliveryId],
    queryFn: async () =>
      unwrap(
        await api.GET('/api/v2/developers/webhooks/{id}/logs/{deliveryId}', {
          params: { path: { id: props.webhookId, deliveryId: props.deliveryId } },
        }),
      ).data,
    refetchInterval: (query) => (query.state.data?.status === 'pending' ? 2000 : false),
  });
  const retry = useMutation({
    mutationFn: async () =>
      unwrap(
        await api.POST('/api/v2/developers/webhooks/{id}/logs/{deliveryId}/retry', {
          params: { path: { id: props.webhookId, deliveryId: props.deliveryId } },
        }),
      ).data,
    onSuccess: props.onRetried,
  });
  if (detail.isPending) return <PageLoader />;
  if (!detail.data) return <ErrorAlert error={detail.error} />;
  const d = detail.data;
  return (
    <Stack gap="sm" py="xs">
      <Group justify="space-between">
        <Text size="sm">
          Event <Code>{d.eventId}</Code>
          {d.nextAttemptAt ? ` · next attempt ${formatTime(d.nextAttemptAt)}` : ''}
        </Text>
        <Button size="xs" variant="default" onClick={() => retry.mutate()} loading={retry.isPending}>
          Retry delivery
        </Button>
      </Group>
      <ErrorAlert error={retry.error} title="Not retried" />
      {retry.data ? (
        <Text size="sm" role="status">
          Retried as delivery <Code>{retry.data.id}</Code>.
        </Text>
      ) : null}
      <Table aria-label="Attempts" withTableBorder data-testid="attempts">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>#</Table.Th>
            <Table.Th>When</Table.Th>
            <Table.Th>Result</Table.Th>
            <Table.Th>Latency</Table.Th>
            <Table.Th>Response</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {d.attemptLog.map((a) => (
            <Table.Tr key={a.attempt}>
              <Table.Td>{a.attempt}</Table.Td>
              <Table.Td>{formatTime(a.attemptedAt)}</Table.Td>
              <Table.Td>
                <StatusBadge status={a.success ? 'delivered' : 'failed'} />{' '}
                {a.statusCode !== null ? `HTTP ${a.statusCode}` : (a.error ?? '')}
              </Table.Td>
              <Table.Td>{a.latencyMs} ms</Table.Td>
              <Table.Td>
                <Text size="xs" ff="monospace" style={{ wordBreak: 'break-all' }}>
                  {a.responseBody ?? a.error ?? ''}
                </Text>
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      <details>
        <summary>Event as sent</summary>
        <Code block>{JSON.stringify(d.event, null, 2)}</Code>
      </details>
    </Stack>
  );
}

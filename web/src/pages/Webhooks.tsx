import {
  Anchor,
  Button,
  Checkbox,
  Group,
  Modal,
  SimpleGrid,
  Stack,
  Table,
  Text,
  TextInput,
} from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { api, environmentStore, unwrap } from '../api/client';
import type { components } from '../api/schema';
import { SecretDialog } from '../components/SecretDialog';
import {
  Empty,
  ErrorAlert,
  formatTime,
  PageHeader,
  PageLoader,
  ScrollTable,
  StatusBadge,
} from '../components/ui';
import { useStoredValue } from '../store';

type EventType = components['schemas']['CreateWebhookRequest']['events'][number];

/** Every event type (SPEC 6); the check below fails the build when the API's list changes. */
export const EVENT_TYPES = [
  'session.started',
  'session.ended',
  'tool.called',
  'tool.completed',
  'tool.failed',
  'workflow.started',
  'workflow.completed',
  'workflow.failed',
  'workflow.step.completed',
  'activity.created',
  'webhook.test',
] as const satisfies readonly EventType[];
const _allEventTypes: Exclude<EventType, (typeof EVENT_TYPES)[number]> extends never ? true : never = true;
void _allEventTypes;

/** Webhooks of the selected environment: list, create (the signing secret shown once). */
export default function WebhooksPage() {
  const environment = useStoredValue(environmentStore);
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const webhooks = useQuery({
    queryKey: ['webhooks', environment],
    queryFn: async () =>
      unwrap(await api.GET('/api/v2/developers/webhooks', { params: { query: { limit: 200 } } })),
  });
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<{ id: string; secret: string } | null>(null);

  return (
    <>
      <PageHeader
        title="Webhooks"
        description={`Signed event deliveries to your endpoints (${environment} environment).`}
        actions={<Button onClick={() => setCreating(true)}>Create webhook</Button>}
      />
      <ErrorAlert error={webhooks.error} />
      {webhooks.isPending ? (
        <PageLoader />
      ) : webhooks.data?.data.length === 0 ? (
        <Empty>No webhooks in the {environment} environment.</Empty>
      ) : (
        <ScrollTable minWidth={720}>
          <Table striped highlightOnHover aria-label="Webhooks">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Name</Table.Th>
                <Table.Th>URL</Table.Th>
                <Table.Th>Events</Table.Th>
                <Table.Th>Status</Table.Th>
                <Table.Th>Last delivery</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {webhooks.data?.data.map((w) => (
                <Table.Tr key={w.id}>
                  <Table.Td>
                    <Anchor component={Link} to={`/webhooks/${w.id}`}>
                      {w.name}
                    </Anchor>
                  </Table.Td>
                  <Table.Td style={{ wordBreak: 'break-all' }}>{w.url}</Table.Td>
                  <Table.Td>{w.events.length}</Table.Td>
                  <Table.Td>
                    <StatusBadge status={w.status} />
                  </Table.Td>
                  <Table.Td>{formatTime(w.lastDeliveredAt)}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </ScrollTable>
      )}
      <CreateWebhookModal
        opened={creating}
        onClose={() => setCreating(false)}
        onCreated={(id, secret) => {
          setCreating(false);
          setCreated({ id, secret });
          queryClient.invalidateQueries({ queryKey: ['webhooks'] });
        }}
      />
      <SecretDialog
        secret={created?.secret ?? null}
        title="Your webhook's signing secret"
        note="Verify every delivery's signature with this secret. It is shown only now; rotate it to get a new one."
        onClose={() => {
          const id = created?.id;
          setCreated(null);
          if (id) navigate(`/webhooks/${id}`);
        }}
      />
    </>
  );
}

function CreateWebhookModal(props: {
  opened: boolean;
  onClose(): void;
  onCreated(id: string, secret: string): void;
}) {
  const [name, setName] = useState('');
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState<string[]>(['session.started', 'session.ended']);
  const [enabled, setEnabled] = useState(true);
  const create = useMutation({
    mutationFn: async () =>
      unwrap(
        await api.POST('/api/v2/developers/webhooks', {
          body: { name, url, events: events as EventType[], enabled },
        }),
      ).data,
    onSuccess: (webhook) => {
      setName('');
      setUrl('');
      create.reset();
      props.onCreated(webhook.id, webhook.secret);
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };
  return (
    <Modal opened={props.opened} onClose={props.onClose} title="Create a webhook" size="lg">
      <form onSubmit={submit}>
        <Stack>
          <TextInput
            label="Name"
            required
            value={name}
            onChange={(e) => setName(e.currentTarget.value)}
            data-autofocus
          />
          <TextInput
            label="Endpoint URL"
            required
            type="url"
            placeholder="https://example.com/hooks/voice"
            value={url}
            onChange={(e) => setUrl(e.currentTarget.value)}
          />
          <Checkbox.Group
            label="Events"
            description="Event types this endpoint receives"
            value={events}
            onChange={setEvents}
            withAsterisk
          >
            <SimpleGrid cols={{ base: 1, xs: 2 }} spacing={6} mt={6}>
              {EVENT_TYPES.map((type) => (
                <Checkbox key={type} value={type} label={type} />
              ))}
            </SimpleGrid>
          </Checkbox.Group>
          <Checkbox label="Enabled" checked={enabled} onChange={(e) => setEnabled(e.currentTarget.checked)} />
          <ErrorAlert error={create.error} title="The webhook was not created" />
          <Text size="xs">
            Deliveries are signed POSTs; failed ones are retried with backoff (five attempts).
          </Text>
          <Group justify="flex-end">
            <Button variant="default" onClick={props.onClose}>
              Cancel
            </Button>
            <Button type="submit" loading={create.isPending}>
              Create webhook
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}

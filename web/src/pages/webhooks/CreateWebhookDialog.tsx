import { Button, Checkbox, Group, Modal, SimpleGrid, Stack, Text, TextInput } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { api, unwrap } from '../../api/client';
import type { components } from '../../api/schema';
import { ErrorAlert } from '../../components/ui';

type EventType = components['schemas']['CreateWebhookRequest']['events'][number];

/**
 * Every event type (docs/api-contract.md "Event types"); the check below fails the build when the API's list
 * changes.
 */
export const EVENT_TYPES = [
  'session.started',
  'session.ended',
  'session.analyzed',
  'tool.called',
  'tool.completed',
  'tool.failed',
  'workflow.started',
  'workflow.completed',
  'workflow.failed',
  'workflow.step.completed',
  'activity.created',
  'persona.rolled_back',
  'test_run.completed',
  'call.started',
  'call.ended',
  'call.transferred',
  'campaign.completed',
  'knowledge.source.ready',
  'knowledge.source.failed',
  'webhook.test',
  'webhook.disabled',
] as const satisfies readonly EventType[];
const _allEventTypes: Exclude<EventType, (typeof EVENT_TYPES)[number]> extends never ? true : never = true;
void _allEventTypes;

/** "Create a webhook": name, endpoint, event types; the new webhook's signing secret goes to onCreated. */
export function CreateWebhookDialog(props: {
  opened: boolean;
  onClose(): void;
  onCreated(id: string, secret: string): void;
}) {
  const [name, setName] = useState('');
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState<string[]>(['session.started', 'session.ended']);
  const [enabled, setEnabled] = useState(true);
  const [ed25519, setEd25519] = useState(false);
  const create = useMutation({
    mutationFn: async () =>
      unwrap(
        await api.POST('/api/v2/developers/webhooks', {
          body: {
            name,
            url,
            events: events as EventType[],
            enabled,
            ...(ed25519 ? { signing: { algorithm: 'ed25519' as const } } : {}),
          },
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
          <WebhookFields
            name={name}
            url={url}
            events={events}
            onName={setName}
            onUrl={setUrl}
            onEvents={setEvents}
          />
          <Checkbox label="Enabled" checked={enabled} onChange={(e) => setEnabled(e.currentTarget.checked)} />
          <Checkbox
            label="Sign with Ed25519 (v1a): receivers verify with a public key"
            checked={ed25519}
            onChange={(e) => setEd25519(e.currentTarget.checked)}
          />
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

/** A webhook's name, endpoint and event types: the fields the create and edit dialogs share. */
export function WebhookFields(props: {
  name: string;
  url: string;
  events: string[];
  onName(value: string): void;
  onUrl(value: string): void;
  onEvents(value: string[]): void;
}) {
  return (
    <>
      <TextInput
        label="Name"
        required
        value={props.name}
        onChange={(e) => props.onName(e.currentTarget.value)}
        data-autofocus
      />
      <TextInput
        label="Endpoint URL"
        required
        type="url"
        placeholder="https://example.com/hooks/voice"
        value={props.url}
        onChange={(e) => props.onUrl(e.currentTarget.value)}
      />
      <EventTypeChoice value={props.events} onChange={props.onEvents} />
    </>
  );
}

/** The event types an endpoint receives, one checkbox each. */
function EventTypeChoice({ value, onChange }: { value: string[]; onChange(value: string[]): void }) {
  return (
    <Checkbox.Group
      label="Events"
      description="Event types this endpoint receives"
      value={value}
      onChange={onChange}
      withAsterisk
    >
      <SimpleGrid cols={{ base: 1, xs: 2 }} spacing={6} mt={6}>
        {EVENT_TYPES.map((type) => (
          <Checkbox key={type} value={type} label={type} />
        ))}
      </SimpleGrid>
    </Checkbox.Group>
  );
}

import { Button, Group, Modal, NativeSelect, Stack } from '@mantine/core';
import { useMutation, useQuery } from '@tanstack/react-query';
import { type FormEvent, useEffect, useState } from 'react';
import { api, unwrap } from '../../api/client';
import type { components } from '../../api/schema';
import { ErrorAlert } from '../../components/ui';
import { WebhookFields } from './CreateWebhookDialog';

type Webhook = components['schemas']['Webhook'];
type EventType = components['schemas']['CreateWebhookRequest']['events'][number];

/** "Edit the webhook": its name, endpoint, event types and persona filter (PUT /webhooks/:id). */
export function EditWebhookDialog(props: {
  webhook: Webhook;
  opened: boolean;
  onClose(): void;
  onSaved(): void;
}) {
  const { webhook } = props;
  const [name, setName] = useState(webhook.name);
  const [url, setUrl] = useState(webhook.url);
  const [events, setEvents] = useState<string[]>(webhook.events);
  const [personaId, setPersonaId] = useState(webhook.personaId ?? '');
  // each opening starts from the webhook as it is now
  useEffect(() => {
    if (!props.opened) return;
    setName(webhook.name);
    setUrl(webhook.url);
    setEvents(webhook.events);
    setPersonaId(webhook.personaId ?? '');
  }, [props.opened, webhook]);
  const personas = useQuery({
    queryKey: ['personas'],
    enabled: props.opened,
    queryFn: async () => unwrap(await api.GET('/api/v1/developers/personas')).personas,
  });
  const save = useMutation({
    mutationFn: async () =>
      unwrap(
        await api.PUT('/api/v2/developers/webhooks/{id}', {
          params: { path: { id: webhook.id } },
          body: { name, url, events: events as EventType[], personaId: personaId || null },
        }),
      ),
    onSuccess: () => {
      save.reset();
      props.onSaved();
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate();
  };
  return (
    <Modal opened={props.opened} onClose={props.onClose} title="Edit the webhook" size="lg">
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
          <NativeSelect
            label="Persona"
            description="Only events of this persona (events without a persona still arrive), or any persona"
            value={personaId}
            onChange={(e) => setPersonaId(e.currentTarget.value)}
            data={[
              { value: '', label: 'Any persona' },
              ...(personas.data ?? []).map((p) => ({ value: p.id, label: p.name || p.id })),
            ]}
          />
          <ErrorAlert error={save.error} title="The webhook was not saved" />
          <Group justify="flex-end">
            <Button variant="default" onClick={props.onClose}>
              Cancel
            </Button>
            <Button type="submit" loading={save.isPending}>
              Save
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}

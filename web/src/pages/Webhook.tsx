import { Anchor, Button, Group, Stack, Switch, Text } from '@mantine/core';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useParams } from 'react-router';
import { api, environmentStore, unwrap } from '../api/client';
import { SecretDialog } from '../components/SecretDialog';
import { ErrorAlert, formatTime, PageHeader, PageLoader, StatusBadge } from '../components/ui';
import { useStoredValue } from '../store';
import { DeleteWebhookDialog } from './webhooks/DeleteWebhookDialog';
import { DeliveryLog } from './webhooks/DeliveryLog';
import { DeliveryStats } from './webhooks/DeliveryStats';
import { EditWebhookDialog } from './webhooks/EditWebhookDialog';
import { TestResult } from './webhooks/TestResult';
import { useWebhookActions } from './webhooks/useWebhookActions';
import { VerifySnippet } from './webhooks/VerifySnippet';
import { WebhookHealth } from './webhooks/WebhookHealth';

/** One webhook: statistics, send a test, rotate the secret, enable/disable, and its delivery log with every attempt. */
export default function WebhookPage() {
  const { id = '' } = useParams();
  const environment = useStoredValue(environmentStore);
  const queryClient = useQueryClient();
  const [deleting, setDeleting] = useState(false);
  const [editing, setEditing] = useState(false);
  const webhook = useQuery({
    queryKey: ['webhook', environment, id],
    queryFn: async () =>
      unwrap(await api.GET('/api/v2/developers/webhooks/{id}', { params: { path: { id } } })).data,
  });
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['webhook', environment, id] });
  const { test, rotate, toggle } = useWebhookActions(id, refresh);

  if (webhook.isPending) return <PageLoader />;
  if (!webhook.data) return <ErrorAlert error={webhook.error} title="The webhook did not load" />;
  const w = webhook.data;
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
            <Button variant="default" onClick={() => setEditing(true)}>
              Edit
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
      {test.data ? <TestResult result={test.data} /> : null}
      <Stack gap="md">
        <Group gap="lg">
          <Switch
            label="Enabled"
            checked={w.enabled}
            onChange={(e) => toggle.mutate(e.currentTarget.checked)}
            disabled={toggle.isPending}
          />
          <Text size="sm">Events: {w.events.join(', ')}</Text>
          {w.signing.publicKey ? (
            <Text size="sm" style={{ wordBreak: 'break-all' }}>
              Ed25519 public key: <code>{w.signing.publicKey}</code>
            </Text>
          ) : null}
        </Group>
        <WebhookHealth webhook={w} onChanged={refresh} />
        <DeliveryStats stats={w.deliveryStats} />
        <DeliveryLog
          webhookId={id}
          onRefresh={refresh}
          // the test's banner describes its first attempt: once that delivery is retried, the log
          // (its new row, followed until it lands) is what says whether the endpoint takes it
          onRetried={(deliveryId) => {
            if (test.data?.deliveryId === deliveryId) test.reset();
          }}
        />
        <VerifySnippet />
      </Stack>
      <EditWebhookDialog
        webhook={w}
        opened={editing}
        onClose={() => setEditing(false)}
        onSaved={() => {
          setEditing(false);
          void refresh();
        }}
      />
      <SecretDialog
        secret={rotate.data?.secret ?? null}
        title="The new signing secret"
        note={
          rotate.data
            ? `Deliveries are signed with the new secret from now on. The previous secret stays valid until ${formatTime(rotate.data.previousSecretExpiresAt)}: switch your endpoint before then. Shown only now.`
            : ''
        }
        onClose={() => rotate.reset()}
      />
      <DeleteWebhookDialog id={id} name={w.name} opened={deleting} onClose={() => setDeleting(false)} />
    </>
  );
}

import { Anchor, Button } from '@mantine/core';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { api, environmentStore, unwrap } from '../api/client';
import type { components } from '../api/schema';
import { type Column, DataTable } from '../components/DataTable';
import { ListPage } from '../components/ListPage';
import { SecretDialog } from '../components/SecretDialog';
import { formatTime, StatusBadge } from '../components/ui';
import { useStoredValue } from '../store';
import { CreateWebhookDialog } from './webhooks/CreateWebhookDialog';

type WebhookSummary = components['schemas']['WebhookSummary'];

const COLUMNS: Column<WebhookSummary>[] = [
  {
    header: 'Name',
    cell: (w) => (
      <Anchor component={Link} to={`/webhooks/${w.id}`}>
        {w.name}
      </Anchor>
    ),
  },
  { header: 'URL', cell: (w) => w.url, style: { wordBreak: 'break-all' } },
  { header: 'Events', cell: (w) => w.events.length },
  { header: 'Status', cell: (w) => <StatusBadge status={w.status} /> },
  { header: 'Last delivery', cell: (w) => formatTime(w.lastDeliveredAt) },
];

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
      <ListPage
        title="Webhooks"
        description={`Signed event deliveries to your endpoints (${environment} environment).`}
        actions={<Button onClick={() => setCreating(true)}>Create webhook</Button>}
        items={webhooks.data?.data}
        pending={webhooks.isPending}
        error={webhooks.error}
        empty={<>No webhooks in the {environment} environment.</>}
      >
        {(rows) => (
          <DataTable
            label="Webhooks"
            minWidth={720}
            striped
            highlightOnHover
            rows={rows}
            columns={COLUMNS}
            rowKey={(w) => w.id}
          />
        )}
      </ListPage>
      <CreateWebhookDialog
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

import { Anchor, Button, Card, Group, Progress, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useParams } from 'react-router';
import { api, unwrap } from '../api/client';
import { backoffPolling } from '../api/polling';
import { DataTable } from '../components/DataTable';
import { ErrorAlert, formatTime, StatusBadge } from '../components/ui';
import {
  type Campaign,
  type CampaignContact,
  campaignRunning,
  progressText,
} from './campaigns/campaign-view';

/** Pause, resume and cancel (Workflow Updates on the campaign's workflow), as its status allows. */
function CampaignControls({ campaign }: { campaign: Campaign }) {
  const queryClient = useQueryClient();
  const control = useMutation({
    mutationFn: async (action: 'pause' | 'resume' | 'cancel') =>
      unwrap(
        await api.POST(`/api/v2/developers/campaigns/{id}/${action}`, {
          params: { path: { id: campaign.id } },
        }),
      ).data,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['campaign', campaign.id] }),
  });
  if (!campaignRunning(campaign)) return null;
  return (
    <Stack gap="xs">
      <Group>
        {campaign.status === 'running' ? (
          <Button variant="default" loading={control.isPending} onClick={() => control.mutate('pause')}>
            Pause
          </Button>
        ) : (
          <Button variant="default" loading={control.isPending} onClick={() => control.mutate('resume')}>
            Resume
          </Button>
        )}
        <Button
          color="red"
          variant="light"
          loading={control.isPending}
          onClick={() => control.mutate('cancel')}
        >
          Cancel campaign
        </Button>
      </Group>
      <Text size="xs" c="dimmed">
        A pause or a cancel places no new call; calls under way go on to their end.
      </Text>
      <ErrorAlert error={control.error} title="The campaign did not take it" />
    </Stack>
  );
}

/** Where the contacts are, as a bar, and the final outcomes so far. */
function CampaignProgress({ campaign }: { campaign: Campaign }) {
  const { progress, outcomes } = campaign;
  const share = (n: number) => (progress.total ? (n / progress.total) * 100 : 0);
  return (
    <Card withBorder>
      <Stack gap="xs">
        <Text size="sm" data-testid="campaign-progress">
          {progressText(campaign)}
        </Text>
        <Progress.Root size="lg">
          <Progress.Section value={share(progress.done)} color="teal" aria-label="Contacts done" />
          <Progress.Section value={share(progress.calling)} color="blue" aria-label="Contacts being called" />
          <Progress.Section
            value={share(progress.waitingRetry)}
            color="yellow"
            aria-label="Contacts waiting to retry"
          />
        </Progress.Root>
        <SimpleGrid cols={{ base: 2, sm: 5 }}>
          {Object.entries(outcomes).map(([outcome, n]) => (
            <Text key={outcome} size="sm">
              {outcome.replace('-', ' ')}: <b>{n}</b>
            </Text>
          ))}
        </SimpleGrid>
      </Stack>
    </Card>
  );
}

const CONTACT_COLUMNS = [
  { header: '#', cell: (c: CampaignContact) => c.index + 1 },
  { header: 'To', cell: (c: CampaignContact) => c.to },
  { header: 'Status', cell: (c: CampaignContact) => <StatusBadge status={c.status} /> },
  { header: 'Outcome', cell: (c: CampaignContact) => c.outcome ?? '—' },
  {
    header: 'Calls',
    cell: (c: CampaignContact) => (
      <Group gap={6}>
        {c.attempts.map((a) => (
          <Anchor key={a.callId} component={Link} to={`/calls/${a.callId}`} size="sm">
            #{a.attempt} {a.outcome ?? 'calling'}
          </Anchor>
        ))}
      </Group>
    ),
  },
];

/** One campaign: its progress, live while it runs; pause, resume, cancel; each contact's calls. */
export default function CampaignPage() {
  const { id = '' } = useParams();
  const campaign = useQuery({
    queryKey: ['campaign', id],
    queryFn: async () =>
      unwrap(await api.GET('/api/v2/developers/campaigns/{id}', { params: { path: { id } } })).data,
    refetchInterval: backoffPolling((c) => Boolean(c && campaignRunning(c))),
  });
  const contacts = useQuery({
    queryKey: ['campaign', id, 'contacts'],
    queryFn: async () =>
      unwrap(
        await api.GET('/api/v2/developers/campaigns/{id}/contacts', {
          params: { path: { id }, query: { limit: 100 } },
        }),
      ),
    refetchInterval: backoffPolling(() => Boolean(campaign.data && campaignRunning(campaign.data))),
  });
  if (campaign.error) return <ErrorAlert error={campaign.error} title="The campaign could not be loaded" />;
  if (!campaign.data) return <Text c="dimmed">Loading…</Text>;
  const c = campaign.data;
  return (
    <Stack>
      <Group justify="space-between">
        <Title order={2}>{c.name}</Title>
        <StatusBadge status={c.status} />
      </Group>
      <Text size="sm" c="dimmed">
        {c.concurrency} at once, {c.callingHours.start}–{c.callingHours.end} ({c.callingHours.timezone});
        created {formatTime(c.createdAt)}
        {c.endedAt ? `, ended ${formatTime(c.endedAt)}` : ''}.
      </Text>
      <CampaignProgress campaign={c} />
      <CampaignControls campaign={c} />
      <Title order={3}>Contacts</Title>
      <ErrorAlert error={contacts.error} title="The contacts could not be loaded" />
      {contacts.data ? (
        <DataTable
          label="Contacts"
          minWidth={700}
          striped
          rows={contacts.data.data}
          rowKey={(r) => String(r.index)}
          columns={CONTACT_COLUMNS}
        />
      ) : null}
      {contacts.data && contacts.data.pagination.total > contacts.data.data.length ? (
        <Text size="sm" c="dimmed">
          Showing the first {contacts.data.data.length} of {contacts.data.pagination.total} contacts.
        </Text>
      ) : null}
    </Stack>
  );
}

import { Anchor, Button } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { api, environmentStore, unwrap } from '../api/client';
import { backoffPolling } from '../api/polling';
import { DataTable } from '../components/DataTable';
import { ListPage } from '../components/ListPage';
import { formatTime, StatusBadge } from '../components/ui';
import { useStoredValue } from '../store';
import { campaignRunning, progressText } from './campaigns/campaign-view';
import { NewCampaignDialog } from './campaigns/NewCampaignDialog';

/**
 * Outbound campaigns of the selected environment, newest first: status, progress and outcomes,
 * followed while one runs; "New campaign" creates one from a CSV of contacts.
 */
export default function CampaignsPage() {
  const environment = useStoredValue(environmentStore);
  const navigate = useNavigate();
  const [creating, setCreating] = useState(false);
  const campaigns = useQuery({
    queryKey: ['campaigns', environment],
    queryFn: async () =>
      unwrap(await api.GET('/api/v2/developers/campaigns', { params: { query: { limit: 100 } } })),
    refetchInterval: backoffPolling((page) => Boolean(page?.data.some(campaignRunning))),
  });
  return (
    <>
      <ListPage
        title="Campaigns"
        description={
          <>
            Outbound campaigns ({environment} environment): a list of contacts called by a persona from one of
            your{' '}
            <Anchor component={Link} to="/phone-numbers" underline="always">
              numbers
            </Anchor>
            , within calling hours, retried as you plan.
          </>
        }
        toolbar={<Button onClick={() => setCreating(true)}>New campaign</Button>}
        items={campaigns.data?.data}
        pending={campaigns.isPending}
        error={campaigns.error}
        empty="No campaigns yet."
      >
        {(rows) => (
          <DataTable
            label="Campaigns"
            minWidth={800}
            striped
            highlightOnHover
            rows={rows}
            rowKey={(c) => c.id}
            columns={[
              {
                header: 'Campaign',
                cell: (c) => (
                  <Anchor component={Link} to={`/campaigns/${c.id}`}>
                    {c.name}
                  </Anchor>
                ),
              },
              { header: 'Status', cell: (c) => <StatusBadge status={c.status} /> },
              { header: 'Progress', cell: progressText },
              { header: 'Answered', cell: (c) => c.outcomes.answered },
              { header: 'Created', cell: (c) => formatTime(c.createdAt) },
            ]}
          />
        )}
      </ListPage>
      <NewCampaignDialog
        opened={creating}
        onClose={() => setCreating(false)}
        onCreated={(id) => navigate(`/campaigns/${id}`)}
      />
    </>
  );
}

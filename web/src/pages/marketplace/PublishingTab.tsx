import { Anchor, Button, Paper, SimpleGrid, Stack, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { api, unwrap } from '../../api/client';
import type { components } from '../../api/schema';
import { type Column, DataTable } from '../../components/DataTable';
import { ListBody } from '../../components/ListPage';
import { ErrorAlert, formatNumber, formatTime, StatusBadge } from '../../components/ui';
import { publishedItemPath } from './queries';

type PublisherProfile = components['schemas']['MarketplacePublisherProfile'];
type PublishedItem = components['schemas']['MarketplacePublisherItem'];

/** The published items table's columns; an item's name opens its page (review, versions, analytics). */
const COLUMNS: Column<PublishedItem>[] = [
  {
    header: 'Item',
    cell: (item) => (
      <Anchor component={Link} to={publishedItemPath(item.id)}>
        {item.name}
      </Anchor>
    ),
  },
  { header: 'Type', cell: (item) => item.type },
  {
    header: 'Version',
    cell: (item) => (
      <>
        {item.version}
        {item.pendingVersion ? ` (${item.pendingVersion} in review)` : ''}
      </>
    ),
  },
  { header: 'Status', cell: (item) => <StatusBadge status={item.status} /> },
  { header: 'Installs', cell: (item) => formatNumber(item.activeInstalls) },
  { header: 'Published', cell: (item) => formatTime(item.publishedAt) },
];

/** The "Publishing" tab: the account as a publisher and its items, each opening its own page. */
export function PublishingTab() {
  const profile = useQuery({
    queryKey: ['marketplace', 'profile'],
    queryFn: async () => unwrap(await api.GET('/api/marketplace/publisher/profile')),
  });
  const items = useQuery({
    queryKey: ['marketplace', 'publisher-items'],
    queryFn: async () => unwrap(await api.GET('/api/marketplace/publisher/items')),
  });
  return (
    <Stack gap="md">
      <ErrorAlert error={profile.error ?? items.error} />
      {profile.data ? <PublisherSummary profile={profile.data} /> : null}
      <ListBody
        items={items.data?.items}
        pending={items.isPending}
        empty="You have not published anything yet."
        emptyAction={
          <Button component={Link} to="/marketplace/publish" variant="outline">
            Publish a tool or agent
          </Button>
        }
      >
        {(rows) => (
          <DataTable
            label="Your items"
            minWidth={640}
            striped
            rows={rows}
            columns={COLUMNS}
            rowKey={(i) => i.id}
          />
        )}
      </ListBody>
    </Stack>
  );
}

/** The publisher's counts of items and who it publishes as. */
function PublisherSummary({ profile }: { profile: PublisherProfile }) {
  const counts = [
    ['Tools', profile.stats.totalTools],
    ['Agents', profile.stats.totalAgents],
    ['Approved', profile.stats.approvedItems],
    ['Pending', profile.stats.pendingItems],
  ] as const;
  return (
    <>
      <SimpleGrid cols={{ base: 2, sm: 4 }} spacing="sm">
        {counts.map(([label, value]) => (
          <Paper withBorder p="sm" key={label}>
            <Text size="xs" tt="uppercase" fw={700}>
              {label}
            </Text>
            <Text size="xl" fw={700}>
              {formatNumber(value)}
            </Text>
          </Paper>
        ))}
      </SimpleGrid>
      <Text size="sm">
        Publishing as {profile.publisherName} ({profile.publisherId}) ·{' '}
        {profile.verified ? 'verified publisher' : 'community publisher'}.
      </Text>
    </>
  );
}

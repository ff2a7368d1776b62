import { Anchor, Paper, SimpleGrid, Stack, Text, UnstyledButton } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { api, unwrap } from '../../api/client';
import type { components } from '../../api/schema';
import { type Column, DataTable } from '../../components/DataTable';
import { ListBody } from '../../components/ListPage';
import { ErrorAlert, formatNumber, formatTime, StatusBadge } from '../../components/ui';
import { ItemAnalytics } from './ItemAnalytics';

type PublisherProfile = components['schemas']['MarketplacePublisherProfile'];
type PublishedItem = components['schemas']['MarketplacePublisherItem'];

/** The published items table's columns; an item's name opens (and closes) its analytics. */
function publishedItemColumns(
  selected: string | null,
  onSelect: (id: string) => void,
): Column<PublishedItem>[] {
  return [
    {
      header: 'Item',
      cell: (item) => (
        <UnstyledButton
          onClick={() => onSelect(item.id)}
          aria-pressed={selected === item.id}
          style={{ textDecoration: 'underline', color: 'var(--mantine-color-anchor)' }}
        >
          {item.name}
        </UnstyledButton>
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
}

/** The "Publishing" tab: the account as a publisher, its items, and the analytics of the one chosen. */
export function PublishingTab() {
  const profile = useQuery({
    queryKey: ['marketplace', 'profile'],
    queryFn: async () => unwrap(await api.GET('/api/marketplace/publisher/profile')),
  });
  const items = useQuery({
    queryKey: ['marketplace', 'publisher-items'],
    queryFn: async () => unwrap(await api.GET('/api/marketplace/publisher/items')),
  });
  const [selected, setSelected] = useState<string | null>(null);
  const columns = publishedItemColumns(selected, (id) => setSelected(selected === id ? null : id));
  return (
    <Stack gap="md">
      <ErrorAlert error={profile.error ?? items.error} />
      {profile.data ? <PublisherSummary profile={profile.data} /> : null}
      <ListBody
        items={items.data?.items}
        pending={items.isPending}
        empty="You have not published anything yet."
      >
        {(rows) => (
          <DataTable
            label="Your items"
            minWidth={640}
            striped
            rows={rows}
            columns={columns}
            rowKey={(i) => i.id}
          />
        )}
      </ListBody>
      {selected ? <ItemAnalytics itemId={selected} /> : null}
    </Stack>
  );
}

/** The publisher's counts of items, who it publishes as, and where to submit. */
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
        {profile.verified ? 'verified publisher' : 'community publisher'}. Submit items with{' '}
        <Anchor href="/docs" target="_blank">
          POST /api/marketplace/publisher/submit
        </Anchor>
        .
      </Text>
    </>
  );
}

import {
  Anchor,
  Badge,
  Button,
  Card,
  Group,
  SegmentedControl,
  SimpleGrid,
  Stack,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router';
import { api, unwrap } from '../../api/client';
import { ListBody } from '../../components/ListPage';
import { formatNumber, GOOD } from '../../components/ui';
import { InstallDialog } from './InstallDialog';
import { activeInstallationOf, type Installation, itemPath, useInstallations, useUninstall } from './queries';
import type { ItemSummary, ItemType } from './types';

/** The published tools or agents matching a search (the first 50) and how many match in all. */
function useBrowse(type: ItemType, q: string) {
  return useQuery({
    queryKey: ['marketplace', 'browse', type, q],
    queryFn: async (): Promise<{ items: ItemSummary[]; totalCount: number }> => {
      const query = { q: q || undefined, limit: 50 };
      if (type === 'tool') {
        const data = unwrap(await api.GET('/api/marketplace/browse/tools', { params: { query } }));
        return { items: data.tools, totalCount: data.totalCount };
      }
      const data = unwrap(await api.GET('/api/marketplace/browse/agents', { params: { query } }));
      return { items: data.agents, totalCount: data.totalCount };
    },
  });
}

/** The "Browse" tab: search tools or agents, install one; those installed say so, with Uninstall. */
export function BrowseTab() {
  const [type, setType] = useState<ItemType>('tool');
  const [search, setSearch] = useState('');
  const [q] = useDebouncedValue(search.trim(), 300);
  const [installing, setInstalling] = useState<ItemSummary | null>(null);
  const found = useBrowse(type, q);
  const installs = useInstallations();
  const uninstall = useUninstall();
  return (
    <Stack gap="md">
      <Group align="flex-end" gap="sm">
        <SegmentedControl
          aria-label="Item type"
          value={type}
          onChange={(v) => setType(v as ItemType)}
          data={[
            { value: 'tool', label: 'Tools' },
            { value: 'agent', label: 'Agents' },
          ]}
        />
        <TextInput
          label="Search"
          placeholder="crm, calendar, “order status”…"
          value={search}
          onChange={(e) => setSearch(e.currentTarget.value)}
          style={{ flex: '1 1 220px' }}
        />
      </Group>
      <ListBody
        items={found.data?.items}
        pending={found.isPending}
        error={found.error ?? installs.error ?? uninstall.error}
        empty={<>Nothing {q ? `matches “${q}”` : 'published yet'}.</>}
      >
        {(items) => (
          <>
            <Text size="sm">{formatNumber(found.data?.totalCount ?? 0)} found</Text>
            <SimpleGrid cols={{ base: 1, sm: 2, lg: 3 }} spacing="md">
              {items.map((item) => (
                <MarketItemCard
                  key={item.id}
                  item={item}
                  type={type}
                  installation={activeInstallationOf(installs.data, item.id)}
                  uninstallingId={uninstall.isPending ? uninstall.variables?.id : undefined}
                  onInstall={() => setInstalling(item)}
                  onUninstall={(i) => uninstall.mutate({ id: i.id, itemType: type })}
                />
              ))}
            </SimpleGrid>
          </>
        )}
      </ListBody>
      <InstallDialog item={installing} type={type} onClose={() => setInstalling(null)} />
    </Stack>
  );
}

/** One tool or agent: name (its page), publisher, version, installs, pricing, description; Install, or Installed and Uninstall. */
function MarketItemCard(props: {
  item: ItemSummary;
  type: ItemType;
  installation: Installation | undefined;
  uninstallingId: string | undefined;
  onInstall(): void;
  onUninstall(installation: Installation): void;
}) {
  const { item, installation } = props;
  const path = itemPath(props.type, item.id);
  return (
    <Card withBorder component="article" data-testid={`market-item-${item.id}`}>
      <Stack gap={6}>
        <Group justify="space-between" wrap="nowrap" align="flex-start">
          <Title order={2} size="h4">
            <Anchor component={Link} to={path} inherit>
              {'displayName' in item ? item.displayName : item.name}
            </Anchor>
          </Title>
          {item.verified ? (
            <Badge variant="outline" color={GOOD}>
              verified
            </Badge>
          ) : null}
        </Group>
        <Text size="xs">
          {item.publisher.name} · v{item.version} · {formatNumber(item.activeInstalls)} installs ·{' '}
          {item.pricing.model}
        </Text>
        <Text size="sm">{item.description}</Text>
        <Group justify="flex-end" gap="sm">
          {installation ? (
            <>
              <Anchor component={Link} to={`${path}#installation`} size="sm" c={GOOD} fw={700}>
                Installed
              </Anchor>
              <Button
                size="xs"
                variant="outline"
                color="red.8"
                loading={props.uninstallingId === installation.id}
                onClick={() => props.onUninstall(installation)}
                aria-label={`Uninstall ${item.name}`}
              >
                Uninstall
              </Button>
            </>
          ) : (
            <Button size="xs" onClick={props.onInstall} aria-label={`Install ${item.name}`}>
              Install
            </Button>
          )}
        </Group>
      </Stack>
    </Card>
  );
}

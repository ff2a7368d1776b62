import {
  Anchor,
  Badge,
  Button,
  Card,
  Checkbox,
  Group,
  Modal,
  Paper,
  SegmentedControl,
  SimpleGrid,
  Stack,
  Table,
  Tabs,
  Text,
  TextInput,
  Title,
  UnstyledButton,
  VisuallyHidden,
} from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useSearchParams } from 'react-router';
import { api, unwrap } from '../api/client';
import type { components } from '../api/schema';
import {
  Empty,
  ErrorAlert,
  formatNumber,
  formatTime,
  GOOD,
  PageHeader,
  PageLoader,
  ScrollTable,
  StatusBadge,
} from '../components/ui';

type ItemType = 'tool' | 'agent';
type Summary =
  | components['schemas']['MarketplaceToolSummary']
  | components['schemas']['MarketplaceAgentSummary'];

const TABS = ['browse', 'installed', 'publishing'] as const;

/** Marketplace: browse and install tools and agents, your installations, your published items and their analytics. */
export default function MarketplacePage() {
  const [params, setParams] = useSearchParams();
  const tab = (TABS as readonly string[]).includes(params.get('tab') ?? '') ? params.get('tab')! : 'browse';
  return (
    <>
      <PageHeader
        title="Marketplace"
        description="Tools and agents published by developers; install them for your account, or publish your own."
      />
      <Tabs
        value={tab}
        onChange={(v) => setParams(v && v !== 'browse' ? { tab: v } : {}, { replace: true })}
        keepMounted={false}
      >
        <Tabs.List mb="md">
          <Tabs.Tab value="browse">Browse</Tabs.Tab>
          <Tabs.Tab value="installed">Installed</Tabs.Tab>
          <Tabs.Tab value="publishing">Publishing</Tabs.Tab>
        </Tabs.List>
        <Tabs.Panel value="browse">
          <Browse />
        </Tabs.Panel>
        <Tabs.Panel value="installed">
          <Installed />
        </Tabs.Panel>
        <Tabs.Panel value="publishing">
          <Publishing />
        </Tabs.Panel>
      </Tabs>
    </>
  );
}

function Browse() {
  const [type, setType] = useState<ItemType>('tool');
  const [search, setSearch] = useState('');
  const [q] = useDebouncedValue(search.trim(), 300);
  const [installing, setInstalling] = useState<Summary | null>(null);
  const items = useQuery({
    queryKey: ['marketplace', 'browse', type, q],
    queryFn: async (): Promise<{ items: Summary[]; totalCount: number }> => {
      const query = { q: q || undefined, limit: 50 };
      if (type === 'tool') {
        const data = unwrap(await api.GET('/api/marketplace/browse/tools', { params: { query } }));
        return { items: data.tools, totalCount: data.totalCount };
      }
      const data = unwrap(await api.GET('/api/marketplace/browse/agents', { params: { query } }));
      return { items: data.agents, totalCount: data.totalCount };
    },
  });
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
      <ErrorAlert error={items.error} />
      {items.isPending ? (
        <PageLoader />
      ) : items.data?.items.length === 0 ? (
        <Empty>Nothing {q ? `matches “${q}”` : 'published yet'}.</Empty>
      ) : (
        <>
          <Text size="sm">{formatNumber(items.data?.totalCount ?? 0)} found</Text>
          <SimpleGrid cols={{ base: 1, sm: 2, lg: 3 }} spacing="md">
            {items.data?.items.map((item) => (
              <Card withBorder key={item.id} component="article" data-testid={`market-item-${item.id}`}>
                <Stack gap={6}>
                  <Group justify="space-between" wrap="nowrap" align="flex-start">
                    <Title order={2} size="h4">
                      {'displayName' in item ? item.displayName : item.name}
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
                  <Group justify="flex-end">
                    <Button size="xs" onClick={() => setInstalling(item)}>
                      Install
                    </Button>
                  </Group>
                </Stack>
              </Card>
            ))}
          </SimpleGrid>
        </>
      )}
      <InstallModal item={installing} type={type} onClose={() => setInstalling(null)} />
    </Stack>
  );
}

function InstallModal({ item, type, onClose }: { item: Summary | null; type: ItemType; onClose(): void }) {
  const queryClient = useQueryClient();
  const [granted, setGranted] = useState<string[] | null>(null);
  const detail = useQuery({
    queryKey: ['marketplace', 'detail', type, item?.id],
    enabled: item !== null,
    queryFn: async () => {
      const id = item!.id;
      return type === 'tool'
        ? unwrap(await api.GET('/api/marketplace/browse/tools/{id}', { params: { path: { id } } })).tool
        : unwrap(await api.GET('/api/marketplace/browse/agents/{id}', { params: { path: { id } } })).agent;
    },
  });
  const permissions = detail.data?.permissions ?? [];
  const chosen = granted ?? permissions;
  const install = useMutation({
    mutationFn: async () =>
      type === 'tool'
        ? unwrap(
            await api.POST('/api/marketplace/install/tool', {
              body: { toolId: item!.id, grantedPermissions: chosen },
            }),
          )
        : unwrap(
            await api.POST('/api/marketplace/install/agent', {
              body: { agentId: item!.id, grantedPermissions: chosen },
            }),
          ),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['marketplace'] }),
  });
  const close = () => {
    setGranted(null);
    install.reset();
    onClose();
  };
  return (
    <Modal opened={item !== null} onClose={close} title={item ? `Install ${item.name}` : ''} size="lg">
      {detail.isPending ? (
        <PageLoader />
      ) : detail.data ? (
        <Stack>
          <Text size="sm">{detail.data.description.long || detail.data.description.short}</Text>
          <Text size="sm">
            Quota per month: free {formatNumber(detail.data.quotas.free)}, pro{' '}
            {formatNumber(detail.data.quotas.pro)}, enterprise {formatNumber(detail.data.quotas.enterprise)}{' '}
            executions.
          </Text>
          {permissions.length ? (
            <Checkbox.Group label="Permissions to grant" value={chosen} onChange={setGranted}>
              <Stack gap={4} mt={4}>
                {permissions.map((p) => (
                  <Checkbox key={p} value={p} label={p} />
                ))}
              </Stack>
            </Checkbox.Group>
          ) : (
            <Text size="sm">It asks for no permissions.</Text>
          )}
          <ErrorAlert error={install.error} title="Not installed" />
          {install.data ? (
            <Text role="status" c={GOOD}>
              Installed ({install.data.installation.id}).
            </Text>
          ) : null}
          <Group justify="flex-end">
            <Button variant="default" onClick={close}>
              {install.data ? 'Close' : 'Cancel'}
            </Button>
            {!install.data ? (
              <Button onClick={() => install.mutate()} loading={install.isPending}>
                Install
              </Button>
            ) : null}
          </Group>
        </Stack>
      ) : (
        <ErrorAlert error={detail.error} />
      )}
    </Modal>
  );
}

function Installed() {
  const queryClient = useQueryClient();
  const installs = useQuery({
    queryKey: ['marketplace', 'installs'],
    queryFn: async () => unwrap(await api.GET('/api/marketplace/install/list')),
  });
  const uninstall = useMutation({
    mutationFn: async (i: { id: string; itemType: ItemType }) =>
      i.itemType === 'tool'
        ? unwrap(await api.DELETE('/api/marketplace/install/tool/{id}', { params: { path: { id: i.id } } }))
        : unwrap(await api.DELETE('/api/marketplace/install/agent/{id}', { params: { path: { id: i.id } } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['marketplace'] }),
  });
  if (installs.isPending) return <PageLoader />;
  return (
    <>
      <ErrorAlert error={installs.error ?? uninstall.error} />
      {installs.data?.installations.length === 0 ? (
        <Empty>Nothing installed yet.</Empty>
      ) : (
        <ScrollTable minWidth={640}>
          <Table striped aria-label="Installations">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Item</Table.Th>
                <Table.Th>Type</Table.Th>
                <Table.Th>Status</Table.Th>
                <Table.Th>Permissions</Table.Th>
                <Table.Th>Installed</Table.Th>
                <Table.Th>
                  <VisuallyHidden>Actions</VisuallyHidden>
                </Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {installs.data?.installations.map((i) => (
                <Table.Tr key={i.id}>
                  <Table.Td>
                    {i.itemName}{' '}
                    <Text span size="xs">
                      v{i.version}
                    </Text>
                  </Table.Td>
                  <Table.Td>{i.itemType}</Table.Td>
                  <Table.Td>
                    <StatusBadge status={i.status} />
                    {i.removesAt ? <Text size="xs">removed {formatTime(i.removesAt)}</Text> : null}
                  </Table.Td>
                  <Table.Td>{i.grantedPermissions.join(', ') || '—'}</Table.Td>
                  <Table.Td>{formatTime(i.installedAt)}</Table.Td>
                  <Table.Td>
                    {i.status === 'active' ? (
                      <Button
                        size="xs"
                        variant="outline"
                        color="red.8"
                        loading={uninstall.isPending && uninstall.variables?.id === i.id}
                        onClick={() => uninstall.mutate({ id: i.id, itemType: i.itemType })}
                        aria-label={`Uninstall ${i.itemName}`}
                      >
                        Uninstall
                      </Button>
                    ) : null}
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </ScrollTable>
      )}
    </>
  );
}

function Publishing() {
  const profile = useQuery({
    queryKey: ['marketplace', 'profile'],
    queryFn: async () => unwrap(await api.GET('/api/marketplace/publisher/profile')),
  });
  const items = useQuery({
    queryKey: ['marketplace', 'publisher-items'],
    queryFn: async () => unwrap(await api.GET('/api/marketplace/publisher/items')),
  });
  const [selected, setSelected] = useState<string | null>(null);
  return (
    <Stack gap="md">
      <ErrorAlert error={profile.error ?? items.error} />
      {profile.data ? (
        <SimpleGrid cols={{ base: 2, sm: 4 }} spacing="sm">
          {(
            [
              ['Tools', profile.data.stats.totalTools],
              ['Agents', profile.data.stats.totalAgents],
              ['Approved', profile.data.stats.approvedItems],
              ['Pending', profile.data.stats.pendingItems],
            ] as const
          ).map(([label, value]) => (
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
      ) : null}
      {profile.data ? (
        <Text size="sm">
          Publishing as {profile.data.publisherName} ({profile.data.publisherId}) ·{' '}
          {profile.data.verified ? 'verified publisher' : 'community publisher'}. Submit items with{' '}
          <Anchor href="/docs" target="_blank">
            POST /api/marketplace/publisher/submit
          </Anchor>
          .
        </Text>
      ) : null}
      {items.isPending ? (
        <PageLoader />
      ) : items.data?.items.length === 0 ? (
        <Empty>You have not published anything yet.</Empty>
      ) : (
        <ScrollTable minWidth={640}>
          <Table striped aria-label="Your items">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Item</Table.Th>
                <Table.Th>Type</Table.Th>
                <Table.Th>Version</Table.Th>
                <Table.Th>Status</Table.Th>
                <Table.Th>Installs</Table.Th>
                <Table.Th>Published</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {items.data?.items.map((item) => (
                <Table.Tr key={item.id}>
                  <Table.Td>
                    <UnstyledButton
                      onClick={() => setSelected(selected === item.id ? null : item.id)}
                      aria-pressed={selected === item.id}
                      style={{ textDecoration: 'underline', color: 'var(--mantine-color-anchor)' }}
                    >
                      {item.name}
                    </UnstyledButton>
                  </Table.Td>
                  <Table.Td>{item.type}</Table.Td>
                  <Table.Td>
                    {item.version}
                    {item.pendingVersion ? ` (${item.pendingVersion} in review)` : ''}
                  </Table.Td>
                  <Table.Td>
                    <StatusBadge status={item.status} />
                  </Table.Td>
                  <Table.Td>{formatNumber(item.activeInstalls)}</Table.Td>
                  <Table.Td>{formatTime(item.publishedAt)}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </ScrollTable>
      )}
      {selected ? <ItemAnalytics itemId={selected} /> : null}
    </Stack>
  );
}

function ItemAnalytics({ itemId }: { itemId: string }) {
  const [period, setPeriod] = useState<'7d' | '30d' | '90d'>('30d');
  const analytics = useQuery({
    queryKey: ['marketplace', 'analytics', itemId, period],
    queryFn: async () =>
      unwrap(
        await api.GET('/api/marketplace/publisher/{id}/analytics', {
          params: { path: { id: itemId }, query: { period } },
        }),
      ),
  });
  const m = analytics.data?.metrics;
  return (
    <Paper withBorder p="md" data-testid="item-analytics">
      <Group justify="space-between" mb="sm">
        <Title order={2} size="h4">
          Analytics of {itemId}
        </Title>
        <SegmentedControl
          size="xs"
          aria-label="Analytics period"
          value={period}
          onChange={(v) => setPeriod(v as typeof period)}
          data={['7d', '30d', '90d']}
        />
      </Group>
      <ErrorAlert error={analytics.error} />
      {m && analytics.data ? (
        <Stack gap="sm">
          <SimpleGrid cols={{ base: 2, sm: 4 }} spacing="sm">
            {(
              [
                ['Installs', formatNumber(m.totalInstalls)],
                ['Active installs', formatNumber(m.activeInstalls)],
                ['Executions', formatNumber(m.totalExecutions)],
                ['Success rate', `${formatNumber(m.successRate * 100, 1)}%`],
                ['Avg execution', `${formatNumber(m.avgExecutionTimeMs, 1)} ms`],
                ['Errors', formatNumber(m.errorCount)],
                ['Users', formatNumber(m.uniqueUsers)],
                [
                  'Revenue',
                  `${(analytics.data.revenue.periodCents / 100).toLocaleString(undefined, {
                    style: 'currency',
                    currency: analytics.data.revenue.currency,
                  })}`,
                ],
              ] as const
            ).map(([label, value]) => (
              <div key={label}>
                <Text size="xs" tt="uppercase" fw={700}>
                  {label}
                </Text>
                <Text fw={700}>{value}</Text>
              </div>
            ))}
          </SimpleGrid>
          {analytics.data.topErrors.length ? (
            <Text size="sm">
              Top errors:{' '}
              {analytics.data.topErrors
                .map((e) => `${e.code} ×${e.count} (last ${formatTime(e.lastOccurred)})`)
                .join(', ')}
            </Text>
          ) : null}
        </Stack>
      ) : (
        <PageLoader />
      )}
    </Paper>
  );
}

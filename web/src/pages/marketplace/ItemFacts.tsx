import { Badge, Group, List, Paper, SimpleGrid, Stack, Table, Text, Title } from '@mantine/core';
import type { ReactNode } from 'react';
import { formatNumber, formatTime, GOOD } from '../../components/ui';
import type { ItemDetail, Tier } from './queries';

const TIERS: Tier[] = ['free', 'pro', 'enterprise'];

/** A titled box of the item page. */
export function Section({ title, children, id }: { title: string; children: ReactNode; id?: string }) {
  return (
    <Paper withBorder p="md" id={id} component="section" aria-label={title}>
      <Title order={2} size="h4" mb="xs">
        {title}
      </Title>
      {children}
    </Paper>
  );
}

/** What a run costs: free, or a price per successful run. */
export function priceText(pricing: ItemDetail['pricing']): string {
  if (pricing.model !== 'per_execution' || pricing.priceCents === undefined) return 'Free';
  const price = (pricing.priceCents / 100).toLocaleString(undefined, {
    style: 'currency',
    currency: pricing.currency ?? 'USD',
  });
  return `${price} per successful run`;
}

/** Runs per user and month on each plan; the account's own plan is marked. */
function QuotaTable({ quotas, tier }: { quotas: ItemDetail['quotas']; tier: Tier | undefined }) {
  return (
    <Table withTableBorder={false} aria-label="Quotas per plan">
      <Table.Thead>
        <Table.Tr>
          <Table.Th>Plan</Table.Th>
          <Table.Th>Runs a month</Table.Th>
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {TIERS.map((t) => (
          <Table.Tr key={t}>
            <Table.Td>
              {t}{' '}
              {t === tier ? (
                <Badge size="xs" variant="outline" color={GOOD}>
                  your plan
                </Badge>
              ) : null}
            </Table.Td>
            <Table.Td>{formatNumber(quotas[t])}</Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}

/** The publisher, the permissions installing asks for, quotas per plan, pricing and the released versions. */
export function ItemFacts({ detail, tier }: { detail: ItemDetail; tier: Tier | undefined }) {
  const { verification } = detail;
  return (
    <SimpleGrid cols={{ base: 1, md: 2 }} spacing="md">
      <Section title="Publisher">
        <Text size="sm">
          {detail.publisher.name} ({detail.publisher.id})
        </Text>
        <Text size="sm">
          {verification.verified
            ? `Verified publisher since ${formatTime(verification.verifiedAt)}`
            : 'Community publisher (not verified)'}
        </Text>
        <Text size="sm">
          {formatNumber(detail.activeInstalls)} active installs · first published{' '}
          {formatTime(detail.publishedAt)}
        </Text>
      </Section>
      <Section title="Permissions">
        {detail.permissions.length ? (
          <List size="sm">
            {detail.permissions.map((p) => (
              <List.Item key={p}>{p}</List.Item>
            ))}
          </List>
        ) : (
          <Text size="sm">It asks for no permissions.</Text>
        )}
      </Section>
      <Section title="Quotas and pricing">
        <QuotaTable quotas={detail.quotas} tier={tier} />
        <Text size="sm" mt="xs">
          {priceText(detail.pricing)}. Runs past the quota wait for next month.
        </Text>
      </Section>
      <Section title="Versions">
        <Stack gap="xs" data-testid="item-versions">
          {detail.versions.map((v, index) => (
            <div key={v.version}>
              <Group gap="xs">
                <Text size="sm" fw={700}>
                  {v.version}
                </Text>
                {index === 0 ? (
                  <Badge size="xs" variant="outline" color={GOOD}>
                    live
                  </Badge>
                ) : null}
                <Text size="xs">released {formatTime(v.releasedAt)}</Text>
              </Group>
              <Text size="sm">{v.changelog ?? 'No changelog.'}</Text>
            </div>
          ))}
        </Stack>
      </Section>
    </SimpleGrid>
  );
}

import { Anchor, Badge, Button, Group, List, Stack, Text } from '@mantine/core';
import { useEffect, useState } from 'react';
import { Link, useLocation, useParams } from 'react-router';
import { ErrorAlert, formatTime, GOOD, PageHeader, PageLoader } from '../../components/ui';
import { InstallDialog } from './InstallDialog';
import { ItemFacts, Section } from './ItemFacts';
import { QuotaUse } from './QuotaUse';
import {
  activeInstallationOf,
  type Installation,
  type ItemDetail,
  publishedItemPath,
  type Tier,
  useAccount,
  useInstallations,
  useItemDetail,
  useUninstall,
} from './queries';
import type { ItemType } from './types';

/** A tool's runtime, or an agent's persona and tools. */
function Specifics({ detail }: { detail: ItemDetail }) {
  if ('execution' in detail) {
    return (
      <Text size="sm">
        Runtime {detail.execution.runtime.type} {detail.execution.runtime.version}
        {detail.execution.toolName ? ` (tool ${detail.execution.toolName})` : ''}
        {detail.execution.executable ? '' : ': listed only, it cannot be run here'}. What the model is told:{' '}
        {detail.interface.llmDescription}
      </Text>
    );
  }
  return (
    <>
      <Text size="sm">
        Persona {detail.persona.name ?? detail.displayName}
        {detail.persona.tagline ? `: ${detail.persona.tagline}` : ''}. It greets with “
        {detail.persona.greeting ?? '…'}”.
      </Text>
      {detail.tools.length ? (
        <List size="sm" mt="xs">
          {detail.tools.map((t) => (
            <List.Item key={t.id}>
              {t.name ?? t.id} {t.version ? `v${t.version}` : ''} {t.available ? '' : '(no longer available)'}
            </List.Item>
          ))}
        </List>
      ) : null}
    </>
  );
}

/** The account's installation of the item: when, what it granted, this month's quota use, Uninstall. */
function InstallationSection(props: { installation: Installation; busy: boolean; onUninstall(): void }) {
  const { installation } = props;
  return (
    <Section title="Your installation" id="installation">
      <Stack gap="xs">
        <Text size="sm">
          Installed {formatTime(installation.installedAt)}, granting{' '}
          {installation.grantedPermissions.join(', ') || 'no permissions'}.
        </Text>
        <QuotaUse itemId={installation.itemId} itemName={installation.itemName} />
        <Group>
          <Button variant="outline" color="red.8" loading={props.busy} onClick={props.onUninstall}>
            Uninstall
          </Button>
        </Group>
      </Stack>
    </Section>
  );
}

/** An item's page: description, publisher, permissions, quotas per plan, versions; install or uninstall. */
export function ItemPage({ type }: { type: ItemType }) {
  const { id = '' } = useParams();
  const detail = useItemDetail(type, id);
  const account = useAccount();
  const installs = useInstallations();
  const uninstall = useUninstall();
  const [installing, setInstalling] = useState(false);
  const installation = activeInstallationOf(installs.data, id);
  const { hash } = useLocation();
  const showInstallation =
    hash === '#installation' && installation !== undefined && detail.data !== undefined;
  // browse cards' "Installed" links here: scroll to the installation once it is shown
  useEffect(() => {
    if (showInstallation) document.getElementById('installation')?.scrollIntoView();
  }, [showInstallation]);
  const back = (
    <Anchor component={Link} to="/marketplace" size="sm">
      ← Marketplace
    </Anchor>
  );
  if (!detail.data) {
    return (
      <Stack gap="sm">
        {back}
        {detail.isPending ? (
          <PageLoader />
        ) : (
          <ErrorAlert error={detail.error} title="Not in the marketplace" />
        )}
      </Stack>
    );
  }
  const item = detail.data;
  const mine = account.data?.publisherId === item.publisher.id;
  return (
    <Stack gap="md">
      {back}
      <PageHeader
        title={'displayName' in item ? `${item.displayName} (${item.name})` : item.name}
        description={`${item.description.short} · v${item.version} · ${item.verification.trustLevel}`}
        actions={
          installation ? (
            <Badge size="lg" variant="outline" color={GOOD}>
              Installed
            </Badge>
          ) : (
            <Button onClick={() => setInstalling(true)}>Install</Button>
          )
        }
      />
      <ErrorAlert error={installs.error ?? uninstall.error} />
      {mine ? (
        <Text size="sm">
          You publish this {type}:{' '}
          <Anchor component={Link} to={publishedItemPath(item.id)}>
            its review, versions and analytics
          </Anchor>
          .
        </Text>
      ) : null}
      {installation ? (
        <InstallationSection
          installation={installation}
          busy={uninstall.isPending}
          onUninstall={() => uninstall.mutate({ id: installation.id, itemType: type })}
        />
      ) : null}
      <Section title="Description">
        <Text size="sm" mb="xs" style={{ whiteSpace: 'pre-wrap' }}>
          {item.description.long}
        </Text>
        <Specifics detail={item} />
      </Section>
      <ItemFacts detail={item} tier={account.data?.plan as Tier | undefined} />
      <InstallDialog
        item={installing ? { id: item.id, name: item.name } : null}
        type={type}
        onClose={() => setInstalling(false)}
      />
    </Stack>
  );
}

import { Anchor, Button, Group, Paper, Stack, Text, Title } from '@mantine/core';
import { Link, useParams } from 'react-router';
import { ErrorAlert, PageHeader, PageLoader, StatusBadge } from '../../components/ui';
import { ItemAnalytics } from './ItemAnalytics';
import { itemPath } from './queries';
import { RemovalControls } from './RemovalControls';
import { ReviewProgress } from './ReviewProgress';
import { type PublishedItem, usePublishedItem, versionUnderReview } from './usePublishedItem';
import { VersionsTable } from './VersionsTable';

/** What is live: the approved version (and the one in review), or nothing yet. */
function liveText(item: PublishedItem): string {
  const pending = item.pendingVersion ? `; ${item.pendingVersion} is in review` : '';
  if (item.publishedAt) return `Version ${item.version} is live${pending}.`;
  return `Not live yet: version ${item.latestVersion} ${item.status === 'rejected' ? 'was rejected' : 'is in review'}.`;
}

/** One of the account's items as its publisher sees it: review progress and notes, versions, removal, analytics. */
export function PublishedItemPage() {
  const { id = '' } = useParams();
  const query = usePublishedItem(id);
  const item = query.data?.item;
  const back = (
    <Anchor component={Link} to="/marketplace?tab=publishing" size="sm">
      ← Publishing
    </Anchor>
  );
  if (!item) {
    return (
      <Stack gap="sm">
        {back}
        {query.isPending ? <PageLoader /> : <ErrorAlert error={query.error} />}
      </Stack>
    );
  }
  const latest = item.versions[0];
  const canUpdate = item.status !== 'removal_scheduled' && item.status !== 'removed';
  return (
    <Stack gap="md">
      {back}
      <PageHeader
        title={item.name}
        description={`${item.type} ${item.id} · ${item.trustLevel} publisher · ${item.activeInstalls} active installs`}
        actions={
          canUpdate ? (
            <Button component={Link} to="new-version">
              New version
            </Button>
          ) : null
        }
      />
      <ErrorAlert error={query.error} />
      <Group gap="xs">
        <StatusBadge status={item.status} />
        <Text size="sm">
          {liveText(item)}{' '}
          {item.status === 'approved' ? (
            <Anchor component={Link} to={itemPath(item.type, item.id)}>
              Its page in the marketplace
            </Anchor>
          ) : null}
        </Text>
      </Group>
      {latest ? <ReviewProgress version={latest} following={versionUnderReview(item) !== undefined} /> : null}
      <Paper withBorder p="md" component="section" aria-labelledby="versions-title">
        <Title order={2} size="h4" mb="xs" id="versions-title">
          Versions
        </Title>
        <VersionsTable versions={item.versions} />
      </Paper>
      <Paper withBorder p="md" component="section" aria-labelledby="removal-title">
        <Title order={2} size="h4" mb="xs" id="removal-title">
          Removal
        </Title>
        <RemovalControls item={item} />
      </Paper>
      {item.publishedAt ? <ItemAnalytics itemId={item.id} /> : null}
    </Stack>
  );
}

import { Anchor, Stack, Text } from '@mantine/core';
import { Link, useParams } from 'react-router';
import { ErrorAlert, PageHeader, PageLoader } from '../../components/ui';
import { ManifestForm } from './ManifestForm';
import { manifestTemplate, manifestText, nextPatch } from './manifestTemplates';
import { publishedItemPath, useAccount } from './queries';
import { usePublishedItem } from './usePublishedItem';

const REVIEW_NOTE =
  'Automated checks run at once (for MCP tools, a real connection to the endpoint); then an operator approves or rejects it, usually within 2–5 business days. The item’s page follows the review.';

/** "Publish a tool or agent": the manifest form, starting from a template with the account as publisher. */
export function PublishPage() {
  const account = useAccount();
  return (
    <Stack gap="sm">
      <Anchor component={Link} to="/marketplace?tab=publishing" size="sm">
        ← Publishing
      </Anchor>
      <PageHeader title="Publish a tool or agent" description={REVIEW_NOTE} />
      <ErrorAlert error={account.error} />
      {account.data ? (
        <ManifestForm
          target={{ kind: 'new', account: account.data }}
          initialText={manifestText(manifestTemplate('tool', account.data))}
        />
      ) : account.isPending ? (
        <PageLoader />
      ) : null}
    </Stack>
  );
}

/** "New version of …": the form starting from the latest manifest with the next patch version. */
export function NewVersionPage() {
  const { id = '' } = useParams();
  const item = usePublishedItem(id);
  const data = item.data?.item;
  return (
    <Stack gap="sm">
      <Anchor component={Link} to={publishedItemPath(id)} size="sm">
        ← {data?.name ?? id}
      </Anchor>
      <PageHeader title={`New version of ${data?.name ?? id}`} description={REVIEW_NOTE} />
      <ErrorAlert error={item.error} />
      {data ? (
        <>
          <Text size="sm">
            Starts from version {data.latestVersion}. Until the new version is approved,{' '}
            {data.status === 'approved' ? `version ${data.version} stays live` : 'nothing is live'}.
          </Text>
          <ManifestForm
            target={{ kind: 'version', itemId: data.id, type: data.type }}
            initialText={manifestText({
              ...data.manifest,
              version: nextPatch(data.latestVersion),
              changelog: '',
            })}
          />
        </>
      ) : item.isPending ? (
        <PageLoader />
      ) : null}
    </Stack>
  );
}

import { Button, Group, Stack, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { api, environmentStore, unwrap } from '../../../api/client';
import { ErrorAlert, formatTime, PageLoader } from '../../../components/ui';
import { useStoredValue } from '../../../store';
import { type Draft, draftOf } from './draft';

/**
 * The workflow's saved versions, newest first (`GET /workflows/:id/versions`); one can be opened in
 * the builder, and saving it makes it the newest version (the history only grows).
 */
export function VersionsPanel(props: {
  workflowId: string;
  current: number | null;
  onOpen(d: Draft, version: number): void;
}) {
  const environment = useStoredValue(environmentStore);
  const versions = useQuery({
    queryKey: ['workflow-versions', environment, props.workflowId],
    queryFn: async () =>
      unwrap(
        await api.GET('/api/v2/developers/workflows/{id}/versions', {
          params: { path: { id: props.workflowId }, query: { limit: 50 } },
        }),
      ),
  });
  if (versions.isPending) return <PageLoader />;
  if (!versions.data) return <ErrorAlert error={versions.error} title="The versions did not load" />;
  return (
    <Stack gap={6} component="ol" p={0} style={{ listStyle: 'none' }} aria-label="Versions">
      {versions.data.data.map((v) => (
        <Group
          component="li"
          key={v.version}
          justify="space-between"
          wrap="wrap"
          data-testid={`version-${v.version}`}
        >
          <Text size="sm">
            <strong>Version {v.version}</strong> · {v.name} · {v.nodes.length} nodes · saved{' '}
            {formatTime(v.createdAt)}
            {v.version === props.current ? ' · current' : ''}
          </Text>
          {v.version !== props.current ? (
            <Button size="xs" variant="default" onClick={() => props.onOpen(draftOf(v), v.version)}>
              Open version {v.version}
            </Button>
          ) : null}
        </Group>
      ))}
      {versions.data.pagination.total > versions.data.data.length ? (
        <Text size="sm">
          The newest {versions.data.data.length} of {versions.data.pagination.total} versions.
        </Text>
      ) : null}
    </Stack>
  );
}

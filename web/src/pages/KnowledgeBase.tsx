import { Anchor, Button, Group, Paper, Stack, Text, TextInput, Title } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useParams } from 'react-router';
import { api, environmentStore, unwrap } from '../api/client';
import { backoffPolling } from '../api/polling';
import { DataTable } from '../components/DataTable';
import { ErrorAlert, formatNumber, PageHeader, PageLoader, StatusBadge } from '../components/ui';
import { useStoredValue } from '../store';
import { AddSource } from './knowledge/AddSource';

const indexing = (s: { status: string }) => s.status === 'pending' || s.status === 'indexing';

/** Searches the base as a turn would, and shows the chunks that come back, best first. */
function SearchBase({ baseId }: { baseId: string }) {
  const [q, setQ] = useState('');
  const search = useMutation({
    mutationFn: async () =>
      unwrap(
        await api.GET('/api/v2/developers/knowledge-bases/{id}/search', {
          params: { path: { id: baseId }, query: { q, limit: 5 } },
        }),
      ).data,
  });
  return (
    <Stack gap="xs">
      <Group align="flex-end">
        <TextInput
          label="Search"
          description="What a caller might say: the chunks a turn would get"
          value={q}
          onChange={(e) => setQ(e.currentTarget.value)}
          onKeyDown={(e) => e.key === 'Enter' && q.trim() && search.mutate()}
          style={{ flex: 1 }}
        />
        <Button onClick={() => search.mutate()} disabled={!q.trim()} loading={search.isPending}>
          Search
        </Button>
      </Group>
      {search.error && <ErrorAlert error={search.error} title="The search failed" />}
      {search.data && search.data.length === 0 && <Text size="sm">Nothing matches.</Text>}
      {search.data?.map((hit) => (
        <Paper
          withBorder
          p="xs"
          key={`${hit.sourceId}:${hit.heading}:${hit.text.slice(0, 80)}`}
          data-testid="search-hit"
        >
          <Text size="sm" fw={600}>
            {hit.sourceName}
            {hit.heading ? ` › ${hit.heading}` : ''} · score {hit.score.toFixed(2)}
          </Text>
          <Text size="sm" style={{ whiteSpace: 'pre-wrap' }} lineClamp={4}>
            {hit.text}
          </Text>
        </Paper>
      ))}
    </Stack>
  );
}

/** The personas whose agents answer from this base. */
function UsedBy({ baseId }: { baseId: string }) {
  const personas = useQuery({
    queryKey: ['personas'],
    queryFn: async () => unwrap(await api.GET('/api/v1/developers/personas')).personas,
  });
  const using = (personas.data ?? []).filter((p) => p.knowledgeBases.includes(baseId));
  if (personas.isPending) return null;
  return (
    <Text size="sm" data-testid="used-by">
      Used by:{' '}
      {using.length === 0
        ? 'no persona yet (pick it in a persona’s Knowledge section)'
        : using.map((p, i) => (
            <span key={p.id}>
              {i > 0 ? ', ' : ''}
              <Anchor component={Link} to={`/personas/${p.id}`}>
                {p.name || p.id}
              </Anchor>
            </span>
          ))}
    </Text>
  );
}

/** One knowledge base: add files, URLs or text, watch each source index, search it, see who uses it. */
export default function KnowledgeBasePage() {
  const { id = '' } = useParams();
  const environment = useStoredValue(environmentStore);
  const queryClient = useQueryClient();
  const base = useQuery({
    queryKey: ['knowledge-base', environment, id],
    queryFn: async () =>
      unwrap(await api.GET('/api/v2/developers/knowledge-bases/{id}', { params: { path: { id } } })).data,
  });
  const sources = useQuery({
    queryKey: ['knowledge-sources', environment, id],
    queryFn: async () =>
      unwrap(
        await api.GET('/api/v2/developers/knowledge-bases/{id}/sources', {
          params: { path: { id }, query: { limit: 200 } },
        }),
      ).data,
    refetchInterval: backoffPolling((rows) => Boolean(rows?.some(indexing))),
  });
  const refreshSources = () =>
    queryClient.invalidateQueries({ queryKey: ['knowledge-sources', environment, id] });
  const act = useMutation({
    mutationFn: async ({ sourceId, action }: { sourceId: string; action: 'refresh' | 'delete' }) => {
      const path = { params: { path: { id, sourceId } } };
      if (action === 'delete')
        unwrap(await api.DELETE('/api/v2/developers/knowledge-bases/{id}/sources/{sourceId}', path));
      else unwrap(await api.POST('/api/v2/developers/knowledge-bases/{id}/sources/{sourceId}/refresh', path));
    },
    onSettled: refreshSources,
  });
  if (base.isPending) return <PageLoader />;
  if (!base.data) return <ErrorAlert error={base.error} title="The knowledge base did not load" />;
  return (
    <Stack gap="lg">
      <PageHeader
        title={base.data.name}
        description={base.data.description ?? `Searched in ${base.data.language}`}
      />
      <UsedBy baseId={id} />
      <Paper withBorder p="md">
        <Title order={2} size="h4" mb="sm">
          Add a source
        </Title>
        <AddSource baseId={id} onAdded={() => void refreshSources()} />
      </Paper>
      <Stack gap="xs">
        <Title order={2} size="h4">
          Sources
        </Title>
        {sources.error && <ErrorAlert error={sources.error} title="The sources did not load" />}
        {act.error && <ErrorAlert error={act.error} title="That did not work" />}
        <DataTable
          label="Sources"
          minWidth={700}
          striped
          rows={sources.data ?? []}
          rowKey={(s) => s.id}
          columns={[
            { header: 'Source', cell: (s) => <Text size="sm">{s.name}</Text> },
            { header: 'Type', cell: (s) => s.type },
            {
              header: 'Status',
              cell: (s) => (
                <Stack gap={2}>
                  <StatusBadge status={s.status} />
                  {s.failureReason && (
                    <Text size="xs" c="red.8">
                      {s.failureReason}
                    </Text>
                  )}
                </Stack>
              ),
            },
            { header: 'Chunks', cell: (s) => formatNumber(s.chunks) },
            { header: 'Size', cell: (s) => `${formatNumber(Math.ceil(s.bytes / 1024))} KB` },
            {
              header: '',
              cell: (s) => (
                <Group gap="xs" wrap="nowrap">
                  <Button
                    size="compact-xs"
                    variant="default"
                    disabled={indexing(s)}
                    aria-label={`Refresh ${s.name}`}
                    onClick={() => act.mutate({ sourceId: s.id, action: 'refresh' })}
                  >
                    Refresh
                  </Button>
                  <Button
                    size="compact-xs"
                    variant="default"
                    color="red"
                    aria-label={`Delete ${s.name}`}
                    onClick={() => act.mutate({ sourceId: s.id, action: 'delete' })}
                  >
                    Delete
                  </Button>
                </Group>
              ),
            },
          ]}
        />
      </Stack>
      <Paper withBorder p="md">
        <SearchBase baseId={id} />
      </Paper>
    </Stack>
  );
}

import { Anchor, Button, Group, Stack, Text, Title } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { api, environmentStore, unwrap } from '../api/client';
import { mcpServerToolsQuery } from '../api/queries';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { ErrorAlert, formatTime, PageHeader, PageLoader, StatusBadge } from '../components/ui';
import { useStoredValue } from '../store';
import { McpTestAlert } from './tools/McpTestAlert';
import { McpToolList } from './tools/McpToolList';
import { UsedBy } from './tools/UsedBy';

/** One MCP server: its settings, test the connection, its discovered tools with their schemas, refresh, delete. */
export default function McpServerPage() {
  const { id = '' } = useParams();
  const environment = useStoredValue(environmentStore);
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const [deleting, setDeleting] = useState(false);
  const params = { path: { id } };
  const serverKey = ['mcp-server', environment, id];
  const toolsQuery = mcpServerToolsQuery(environment, id);
  const server = useQuery({
    queryKey: serverKey,
    queryFn: async () => unwrap(await api.GET('/api/v2/developers/mcp-servers/{id}', { params })).data,
  });
  const tools = useQuery(toolsQuery);
  const test = useMutation({
    mutationFn: async () =>
      unwrap(await api.POST('/api/v2/developers/mcp-servers/{id}/test', { params })).data,
    onSettled: () => queryClient.invalidateQueries({ queryKey: serverKey }),
  });
  const refresh = useMutation({
    mutationFn: async () =>
      unwrap(
        await api.GET('/api/v2/developers/mcp-servers/{id}/tools', {
          params: { ...params, query: { refresh: 'true' } },
        }),
      ).data,
    onSuccess: (data) => queryClient.setQueryData(toolsQuery.queryKey, data),
    onSettled: () => queryClient.invalidateQueries({ queryKey: serverKey }),
  });

  if (server.isPending) return <PageLoader />;
  if (!server.data) return <ErrorAlert error={server.error} title="The MCP server did not load" />;
  const s = server.data;
  return (
    <>
      <Anchor component={Link} to="/tools" size="sm">
        ← Tools
      </Anchor>
      <PageHeader
        title={s.name}
        description={
          <>
            <StatusBadge status={s.status} /> <span style={{ wordBreak: 'break-all' }}>{s.endpoint}</span>
          </>
        }
        actions={
          <>
            <Button onClick={() => test.mutate()} loading={test.isPending}>
              Test connection
            </Button>
            <Button variant="default" onClick={() => refresh.mutate()} loading={refresh.isPending}>
              Refresh tools
            </Button>
            <Button variant="outline" color="red.8" onClick={() => setDeleting(true)}>
              Delete
            </Button>
          </>
        }
      />
      <ErrorAlert error={test.error ?? refresh.error} title="That did not work" />
      {test.data ? <McpTestAlert result={test.data} /> : null}
      <Stack gap="md">
        {s.description ? <Text size="sm">{s.description}</Text> : null}
        <Group gap="lg">
          <Text size="sm">Transport: {s.transport === 'http' ? 'Streamable HTTP' : 'HTTP + SSE'}</Text>
          <Text size="sm">
            Headers: {s.headerNames.length ? s.headerNames.join(', ') : 'none'} (values are never shown)
          </Text>
          <Text size="sm">OAuth connection: {s.oauthTokenId ?? 'none'}</Text>
          <Text size="sm">Last connected: {formatTime(s.lastConnectedAt)}</Text>
        </Group>
        <Group gap="xs">
          <Text size="sm">Agents offered its tools:</Text>
          <UsedBy type="mcp_server" id={s.id} />
        </Group>
        {s.lastError ? <ErrorAlert error={new Error(s.lastError)} title="Last connection failed" /> : null}
        <section aria-labelledby="mcp-tools-heading">
          <Title order={2} size="h3" id="mcp-tools-heading" mb={4}>
            Tools
          </Title>
          {tools.data ? (
            <Text size="xs" c="dimmed" mb="sm">
              Listed {formatTime(tools.data.fetchedAt)}
              {tools.data.cached ? ' (cached; Refresh tools asks the server now)' : ''}
            </Text>
          ) : null}
          <ErrorAlert error={tools.error} title="The tools did not load" />
          {tools.isPending ? <PageLoader /> : tools.data ? <McpToolList tools={tools.data.tools} /> : null}
        </section>
      </Stack>
      <ConfirmDialog
        opened={deleting}
        title="Delete this MCP server?"
        confirmLabel="Delete server"
        action={async () => unwrap(await api.DELETE('/api/v2/developers/mcp-servers/{id}', { params }))}
        onClose={() => setDeleting(false)}
        onDone={() => {
          queryClient.invalidateQueries({ queryKey: ['mcp-servers'] });
          navigate('/tools');
        }}
      >
        Agents stop offering the tools of {s.name}; custom tools that call it fail.
      </ConfirmDialog>
    </>
  );
}

import { Badge, Button, Group, Text, VisuallyHidden } from '@mantine/core';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, environmentStore, unwrap } from '../../api/client';
import type { components } from '../../api/schema';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { type Column, DataTable } from '../../components/DataTable';
import { ListBody } from '../../components/ListPage';
import { formatTime } from '../../components/ui';
import { useStoredValue } from '../../store';
import { CreateToolDialog } from './CreateToolDialog';
import { PanelHeader } from './PanelHeader';
import { TestToolDialog } from './TestToolDialog';
import { UsedBy } from './UsedBy';

type Tool = components['schemas']['Tool'];

/** Where a tool goes: the webhook's method and URL, the MCP server's tool, or "prompt". */
function target(tool: Tool): string {
  const c = tool.config as Record<string, string | undefined>;
  if (tool.type === 'webhook') return `${c.method ?? ''} ${c.url ?? ''}`;
  if (tool.type === 'mcp') return `${c.toolName ?? ''} on ${c.serverId ?? ''}`;
  return c.model ? `model ${c.model}` : 'default model';
}

/** The environment's custom tools: list, create (a form per type), test with arguments, delete. */
export function CustomToolsPanel() {
  const environment = useStoredValue(environmentStore);
  const queryClient = useQueryClient();
  const [creating, setCreating] = useState(false);
  const [testing, setTesting] = useState<Tool | null>(null);
  const [deleting, setDeleting] = useState<Tool | null>(null);
  const tools = useQuery({
    queryKey: ['tools', environment],
    queryFn: async () =>
      unwrap(await api.GET('/api/v2/developers/tools', { params: { query: { limit: 100 } } })),
  });
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['tools'] });
  const columns: Column<Tool>[] = [
    {
      header: 'Name',
      cell: (t) => (
        <>
          <Text size="sm" fw={600} ff="monospace">
            {t.name}
          </Text>
          {t.description ? (
            <Text size="xs" c="dimmed">
              {t.description}
            </Text>
          ) : null}
        </>
      ),
    },
    {
      header: 'Type',
      cell: (t) => (
        <Badge variant="outline" color="gray.8">
          {t.type}
        </Badge>
      ),
    },
    { header: 'Calls', cell: target, style: { wordBreak: 'break-all' } },
    {
      header: 'Parameters',
      cell: (t) => Object.keys((t.parameters.properties ?? {}) as object).join(', ') || '—',
    },
    { header: 'Used by', cell: (t) => <UsedBy type="tool" id={t.id} /> },
    { header: 'Created', cell: (t) => formatTime(t.createdAt) },
    {
      header: <VisuallyHidden>Actions</VisuallyHidden>,
      cell: (t) => (
        <Group gap={6} wrap="nowrap">
          <Button size="xs" variant="default" onClick={() => setTesting(t)} aria-label={`Test ${t.name}`}>
            Test
          </Button>
          <Button
            size="xs"
            variant="outline"
            color="red.8"
            onClick={() => setDeleting(t)}
            aria-label={`Delete ${t.name}`}
          >
            Delete
          </Button>
        </Group>
      ),
    },
  ];
  return (
    <>
      <PanelHeader
        title="Custom tools"
        description={`Webhook, MCP and prompt tools your agents can call (${environment} environment).`}
        action={<Button onClick={() => setCreating(true)}>Create tool</Button>}
      />
      <ListBody
        items={tools.data?.data}
        pending={tools.isPending}
        error={tools.error}
        empty={<>No custom tools in the {environment} environment.</>}
      >
        {(rows) => (
          <DataTable
            label="Custom tools"
            minWidth={860}
            striped
            rows={rows}
            columns={columns}
            rowKey={(t) => t.id}
          />
        )}
      </ListBody>
      <CreateToolDialog
        opened={creating}
        onClose={() => setCreating(false)}
        onCreated={() => {
          setCreating(false);
          void refresh();
        }}
      />
      <TestToolDialog tool={testing} onClose={() => setTesting(null)} />
      <ConfirmDialog
        opened={deleting !== null}
        title="Delete this tool?"
        confirmLabel="Delete tool"
        action={async () =>
          unwrap(
            await api.DELETE('/api/v2/developers/tools/{id}', {
              params: { path: { id: deleting?.id ?? '' } },
            }),
          )
        }
        onClose={() => setDeleting(null)}
        onDone={() => {
          setDeleting(null);
          void refresh();
        }}
      >
        Agents stop offering {deleting?.name}.
      </ConfirmDialog>
    </>
  );
}

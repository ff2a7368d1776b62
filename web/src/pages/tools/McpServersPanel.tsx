import { Anchor, Button } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { environmentStore } from '../../api/client';
import { mcpServersQuery } from '../../api/queries';
import type { components } from '../../api/schema';
import { type Column, DataTable } from '../../components/DataTable';
import { ListBody } from '../../components/ListPage';
import { formatTime, StatusBadge } from '../../components/ui';
import { useStoredValue } from '../../store';
import { PanelHeader } from './PanelHeader';
import { RegisterMcpServerDialog } from './RegisterMcpServerDialog';
import { UsedBy } from './UsedBy';

type McpServer = components['schemas']['McpServer'];

const COLUMNS: Column<McpServer>[] = [
  {
    header: 'Name',
    cell: (s) => (
      <Anchor component={Link} to={`/tools/mcp-servers/${s.id}`}>
        {s.name}
      </Anchor>
    ),
  },
  { header: 'Endpoint', cell: (s) => s.endpoint, style: { wordBreak: 'break-all' } },
  { header: 'Status', cell: (s) => <StatusBadge status={s.status} /> },
  { header: 'Tools', cell: (s) => s.toolCount },
  { header: 'Used by', cell: (s) => <UsedBy type="mcp_server" id={s.id} /> },
  { header: 'Last connected', cell: (s) => formatTime(s.lastConnectedAt) },
];

/** The environment's MCP servers: list, register (then its page). */
export function McpServersPanel() {
  const environment = useStoredValue(environmentStore);
  const navigate = useNavigate();
  const [registering, setRegistering] = useState(false);
  const servers = useQuery(mcpServersQuery(environment));
  return (
    <>
      <PanelHeader
        title="MCP servers"
        description={`Servers whose tools your agents can call (${environment} environment).`}
        action={<Button onClick={() => setRegistering(true)}>Register MCP server</Button>}
      />
      <ListBody
        items={servers.data}
        pending={servers.isPending}
        error={servers.error}
        empty={<>No MCP servers in the {environment} environment.</>}
      >
        {(rows) => (
          <DataTable
            label="MCP servers"
            minWidth={720}
            striped
            rows={rows}
            columns={COLUMNS}
            rowKey={(s) => s.id}
          />
        )}
      </ListBody>
      <RegisterMcpServerDialog
        opened={registering}
        onClose={() => setRegistering(false)}
        onCreated={(id) => {
          setRegistering(false);
          navigate(`/tools/mcp-servers/${id}`);
        }}
      />
    </>
  );
}

import { Anchor, Group, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { personasQuery } from '../../api/queries';

/**
 * The personas whose `tools` name this tool, MCP server or marketplace tool (docs/personas.md
 * "Tools"), each a link to its page; "No agent" when none does (its agents are not offered it).
 */
export function UsedBy({ type, id }: { type: 'tool' | 'mcp_server' | 'marketplace'; id: string }) {
  const personas = useQuery(personasQuery());
  const using = (personas.data ?? []).filter((p) => p.tools.some((t) => t.type === type && t.id === id));
  if (personas.isPending) return <Text size="sm">…</Text>;
  if (using.length === 0) {
    return (
      <Text size="sm" c="dimmed">
        No agent
      </Text>
    );
  }
  return (
    <Group gap={6} data-testid={`used-by-${id}`}>
      {using.map((p) => (
        <Anchor key={p.id} component={Link} to={`/personas/${p.id}`} size="sm">
          {p.name || p.id}
        </Anchor>
      ))}
    </Group>
  );
}

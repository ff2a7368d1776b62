import { Accordion, Code, Text } from '@mantine/core';
import type { components } from '../../api/schema';
import { Empty } from '../../components/ui';

type McpTool = components['schemas']['McpTool'];

/** JSON for reading: indented, wrapping long lines (a block that scrolled would have to take focus). */
export function JsonBlock({ value, label }: { value: unknown; label?: string }) {
  return (
    <Code
      block
      aria-label={label}
      style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-word', overflowX: 'visible' }}
    >
      {JSON.stringify(value, null, 2)}
    </Code>
  );
}

/** The tools a server offers: name and description, each opening onto its input schema. */
export function McpToolList({ tools }: { tools: McpTool[] }) {
  if (tools.length === 0) return <Empty>The server offers no tools.</Empty>;
  return (
    <Accordion variant="separated" multiple data-testid="mcp-tools">
      {tools.map((tool) => (
        <Accordion.Item key={tool.name} value={tool.name}>
          <Accordion.Control>
            <Text fw={600} ff="monospace" size="sm">
              {tool.name}
            </Text>
            {tool.description ? (
              <Text size="sm" c="dimmed">
                {tool.description}
              </Text>
            ) : null}
          </Accordion.Control>
          <Accordion.Panel>
            <Text size="xs" fw={600} mb={4}>
              Input schema
            </Text>
            <JsonBlock value={tool.inputSchema} />
          </Accordion.Panel>
        </Accordion.Item>
      ))}
    </Accordion>
  );
}

import { Code, Text } from '@mantine/core';
import type { components } from '../../api/schema';

type Workflow = components['schemas']['Workflow'];

/** The graph in words, for screen readers and copying: each node with the nodes it leads to. */
export function GraphAsText({ workflow: w }: { workflow: Workflow }) {
  return (
    <details>
      <summary>Nodes and edges as text</summary>
      <Text size="sm" component="div">
        <ul>
          {w.nodes.map((n) => (
            <li key={n.id}>
              <Code>{n.id}</Code> ({n.type}) →{' '}
              {w.edges
                .filter((e) => e.sourceId === n.id)
                .map((e) => `${e.targetId}${e.condition !== undefined ? ` [${e.condition}]` : ''}`)
                .join(', ') || 'nothing'}
            </li>
          ))}
        </ul>
      </Text>
    </details>
  );
}

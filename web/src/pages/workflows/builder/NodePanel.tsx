import {
  Alert,
  Button,
  CloseButton,
  Group,
  List,
  NativeSelect,
  Paper,
  Stack,
  Text,
  Title,
} from '@mantine/core';
import { useState } from 'react';
import { type Draft, TYPE_LABELS, type WorkflowEdge } from './draft';
import { NodeConfigFields } from './NodeConfigFields';

/** The selected node's outgoing edges, and a way to add one without dragging (keyboard, screen readers). */
function Connections(props: {
  draft: Draft;
  nodeId: string;
  onConnect(targetId: string, condition?: 'true' | 'false'): void;
  onDisconnect(edge: WorkflowEdge): void;
}) {
  const { draft, nodeId } = props;
  const node = draft.nodes.find((n) => n.id === nodeId);
  const outgoing = draft.edges.filter((e) => e.sourceId === nodeId);
  const targets = draft.nodes.filter((n) => n.id !== nodeId && n.type !== 'start');
  const [target, setTarget] = useState('');
  const [outcome, setOutcome] = useState<'true' | 'false'>('true');
  if (!node || node.type === 'end') return null;
  const isCondition = node.type === 'condition';
  return (
    <Stack gap={6}>
      <Title order={3} size="h6">
        Goes to
      </Title>
      {outgoing.length ? (
        <List size="sm" spacing={2} listStyleType="none" p={0} aria-label={`Edges from ${nodeId}`}>
          {outgoing.map((e) => (
            <List.Item key={`${e.targetId}:${e.condition ?? ''}`}>
              <Group gap={4} wrap="nowrap">
                <Text size="sm">
                  {e.condition ? `${e.condition} → ` : '→ '}
                  {e.targetId}
                </Text>
                <CloseButton
                  size="sm"
                  aria-label={`Remove the edge ${nodeId} → ${e.targetId}${e.condition ? ` (${e.condition})` : ''}`}
                  onClick={() => props.onDisconnect(e)}
                />
              </Group>
            </List.Item>
          ))}
        </List>
      ) : (
        <Text size="sm">Nothing yet: drag from its bottom handle to a node, or choose one here.</Text>
      )}
      <Group gap="xs" align="flex-end" wrap="wrap">
        <NativeSelect
          size="xs"
          label="Connect to"
          value={target}
          onChange={(e) => setTarget(e.currentTarget.value)}
          data={[
            { value: '', label: 'Choose a node' },
            ...targets.map((n) => ({ value: n.id, label: n.id })),
          ]}
        />
        {isCondition ? (
          <NativeSelect
            size="xs"
            label="When"
            value={outcome}
            onChange={(e) => setOutcome(e.currentTarget.value as 'true' | 'false')}
            data={['true', 'false']}
          />
        ) : null}
        <Button
          size="xs"
          variant="default"
          disabled={!target}
          onClick={() => {
            props.onConnect(target, isCondition ? outcome : undefined);
            setTarget('');
          }}
        >
          Connect
        </Button>
      </Group>
    </Stack>
  );
}

/** The selected node: its config by type, its problems from the API, its edges; remove it. */
export function NodePanel(props: {
  draft: Draft;
  nodeId: string | null;
  problems: string[];
  onConfig(id: string, config: Record<string, unknown>): void;
  onConnect(sourceId: string, targetId: string, condition?: 'true' | 'false'): void;
  onDisconnect(edge: WorkflowEdge): void;
  onRemove(id: string): void;
}) {
  const node = props.draft.nodes.find((n) => n.id === props.nodeId);
  if (!node) {
    return (
      <Paper withBorder p="sm">
        <Text size="sm">
          Select a node in the graph to configure it. Add nodes from the palette; join them by dragging from a
          node's bottom handle to another node.
        </Text>
      </Paper>
    );
  }
  return (
    <Paper withBorder p="sm" aria-label={`Node ${node.id}`} component="section">
      <Stack gap="sm">
        <Group justify="space-between">
          <Title order={2} size="h5">
            {node.id}{' '}
            <Text span size="sm">
              ({TYPE_LABELS[node.type] ?? node.type})
            </Text>
          </Title>
          {node.type !== 'start' ? (
            <Button size="xs" variant="outline" color="red.8" onClick={() => props.onRemove(node.id)}>
              Remove node
            </Button>
          ) : null}
        </Group>
        {props.problems.length ? (
          <Alert color="red" title="Problems" data-testid="node-problems">
            {props.problems.map((p) => (
              <Text size="sm" key={p}>
                {p}
              </Text>
            ))}
          </Alert>
        ) : null}
        {/* a new node is a new form: its JSON fields start from its own config */}
        <NodeConfigFields key={node.id} node={node} onChange={(c) => props.onConfig(node.id, c)} />
        <Connections
          draft={props.draft}
          nodeId={node.id}
          onConnect={(targetId, condition) => props.onConnect(node.id, targetId, condition)}
          onDisconnect={props.onDisconnect}
        />
      </Stack>
    </Paper>
  );
}

import { Alert, Button, Code, Group, Stack, Text, Textarea } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { ApiCallError, api, errorText, unwrap } from '../../../api/client';
import { describeCallRequest } from './draft';
import type { Builder } from './useBuilder';

/** A JSON object typed by hand: the value, or why it is not one. */
function parseObject(text: string, what: string): Record<string, unknown> {
  if (!text.trim()) return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new Error(`${what}: ${(e as Error).message}`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw new Error(`${what}: must be a JSON object`);
  return value as Record<string, unknown>;
}

/**
 * A dry run of the draft as it is on the canvas (saved or not): the input, a mocked result for each
 * `mcp_call` and `llm_prompt` node, then the path taken coloured on the graph, what was said, the
 * warnings. Nothing is called and nothing is recorded (`POST /workflows/:id/test` with the draft).
 */
export function DryRunPanel({ builder, workflowId }: { builder: Builder; workflowId: string }) {
  const mockable = builder.draft.nodes.filter((n) => n.type === 'mcp_call' || n.type === 'llm_prompt');
  const [input, setInput] = useState('{}');
  const [mocks, setMocks] = useState<Record<string, string>>({});
  const run = useMutation({
    mutationFn: async () => {
      const mocked: Record<string, unknown> = {};
      for (const n of mockable) {
        const text = mocks[n.id]?.trim();
        if (!text) continue;
        try {
          mocked[n.id] = JSON.parse(text);
        } catch {
          mocked[n.id] = text; // a bare string is a fine result for an llm_prompt
        }
      }
      const body = {
        input: parseObject(input, 'Input'),
        mocks: mocked,
        nodes: builder.draft.nodes,
        edges: builder.draft.edges,
      };
      return unwrap(
        await api.POST('/api/v2/developers/workflows/{id}/test', {
          params: { path: { id: workflowId } },
          body,
        }),
      ).data;
    },
    onMutate: () => builder.setProblems([]),
    onSuccess: (trace) => builder.showPath(trace.steps),
    onError: (error) => {
      if (error instanceof ApiCallError) builder.setProblems(error.validationErrors);
    },
  });
  const trace = run.data;
  return (
    <Stack gap="sm">
      <Textarea
        label="Input (JSON)"
        description="What the run starts with: read as {{input.…}} and input.…"
        ff="monospace"
        autosize
        minRows={2}
        value={input}
        onChange={(e) => setInput(e.currentTarget.value)}
      />
      {mockable.map((n) => (
        <Textarea
          key={n.id}
          label={`Mocked result of ${n.id}`}
          description={
            n.type === 'mcp_call' ? 'The tool’s result, as JSON' : 'The model’s answer: text or JSON'
          }
          ff="monospace"
          autosize
          minRows={1}
          value={mocks[n.id] ?? ''}
          onChange={(e) => setMocks({ ...mocks, [n.id]: e.currentTarget.value })}
        />
      ))}
      <Group>
        <Button onClick={() => run.mutate()} loading={run.isPending}>
          Dry run
        </Button>
      </Group>
      {run.error && !(run.error instanceof ApiCallError && run.error.validationErrors.length) ? (
        <Alert color="red" title="The dry run did not start">
          {errorText(run.error)}
        </Alert>
      ) : null}
      {trace && !run.isPending ? (
        <Alert
          color={trace.status === 'completed' ? 'green' : 'red'}
          title={`Dry run ${trace.status}`}
          data-testid="dry-run-result"
        >
          <Text size="sm">
            Path:{' '}
            {trace.steps
              .filter((s) => s.status === 'completed')
              .map((s) => s.nodeId)
              .join(' → ') || 'none'}
          </Text>
          {trace.output.speech.map((line, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: the speech is in order and never reordered
            <Text size="sm" key={i}>
              Says: “{line}”
            </Text>
          ))}
          {trace.steps.map((s) => {
            // a call node's step: what it would ask of the call (nothing is done in a dry run)
            const asked = s.status === 'completed' ? describeCallRequest(s.result) : null;
            return asked ? (
              <Text size="sm" key={s.nodeId}>
                Asks the call: {asked}
              </Text>
            ) : null;
          })}
          {trace.error ? (
            <Text size="sm">
              Failed at {trace.error.nodeId}: {trace.error.message}
            </Text>
          ) : null}
          {trace.warnings.map((w) => (
            <Text size="sm" key={w}>
              Warning: <Code>{w}</Code>
            </Text>
          ))}
        </Alert>
      ) : null}
    </Stack>
  );
}

import { Code, NativeSelect, NumberInput, Text, Textarea, TextInput } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { environmentStore } from '../../../api/client';
import { mcpServersQuery, mcpServerToolsQuery } from '../../../api/queries';
import { useStoredValue } from '../../../store';
import { CallNodeFields } from './CallNodeFields';
import type { WorkflowNode } from './draft';

type Config = Record<string, unknown>;
const str = (v: unknown) => (typeof v === 'string' ? v : '');

const TEMPLATE_HELP = (
  <>
    Templates: <Code>{'{{input.orderId}}'}</Code> reads the run's input,{' '}
    <Code>{'{{lookup.result.status}}'}</Code> the result of a node that runs before this one.
  </>
);
const EXPRESSION_HELP = (
  <>
    True or false, e.g. <Code>{'lookup.result.status == "shipped"'}</Code>,{' '}
    <Code>{'input.vip && lookup.result.total > 100'}</Code>, <Code>{'x in ["a", "b"]'}</Code>. Operators:{' '}
    <Code>== != &lt; &lt;= &gt; &gt;= && || ! in</Code>; no function calls. The outgoing edges are the node's{' '}
    <strong>true</strong> (left handle) and <strong>false</strong> (right handle) outcomes.
  </>
);

/** JSON in a textarea: applied when it parses, its error shown when it does not. */
function JsonField(props: {
  label: string;
  value: unknown;
  onChange(v: Config): void;
  description?: string;
}) {
  const [text, setText] = useState(() => JSON.stringify(props.value ?? {}, null, 2));
  const [error, setError] = useState<string | null>(null);
  return (
    <Textarea
      label={props.label}
      description={props.description}
      value={text}
      error={error}
      autosize
      minRows={3}
      ff="monospace"
      onChange={(e) => {
        const next = e.currentTarget.value;
        setText(next);
        try {
          const parsed = JSON.parse(next || '{}');
          if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
            throw new Error('must be a JSON object');
          setError(null);
          props.onChange(parsed as Config);
        } catch (err) {
          setError((err as Error).message);
        }
      }}
    />
  );
}

/** The MCP server and tool of an `mcp_call`, picked from the account's servers and their discovered tools. */
function McpCallFields({ config, onChange }: { config: Config; onChange(c: Config): void }) {
  const environment = useStoredValue(environmentStore);
  const servers = useQuery(mcpServersQuery(environment));
  const serverId = str(config.serverId);
  const tools = useQuery(mcpServerToolsQuery(environment, serverId));
  const tool = tools.data?.tools.find((t) => t.name === config.toolName);
  return (
    <>
      <NativeSelect
        label="MCP server"
        value={serverId}
        onChange={(e) => onChange({ ...config, serverId: e.currentTarget.value, toolName: '' })}
        data={[
          { value: '', label: servers.isPending ? 'Loading…' : 'Choose a server' },
          ...(servers.data ?? []).map((s) => ({ value: s.id, label: `${s.name} (${s.toolCount} tools)` })),
        ]}
      />
      <NativeSelect
        label="Tool"
        value={str(config.toolName)}
        disabled={!serverId}
        onChange={(e) => onChange({ ...config, toolName: e.currentTarget.value })}
        data={[
          { value: '', label: tools.isFetching ? 'Loading…' : 'Choose a tool' },
          ...(tools.data?.tools ?? []).map((t) => ({ value: t.name, label: t.name })),
        ]}
      />
      {tool?.description ? <Text size="xs">{tool.description}</Text> : null}
      <JsonField
        key={`${serverId}/${str(config.toolName)}`}
        label="Arguments (JSON)"
        description={
          tool
            ? `Its parameters: ${Object.keys((tool.inputSchema.properties as object) ?? {}).join(', ') || 'none'}. Values may be templates.`
            : 'Values may be templates.'
        }
        value={config.arguments}
        onChange={(args) => onChange({ ...config, arguments: args })}
      />
      <NumberInput
        label="Timeout (ms)"
        description="100 to 60 000; 30 000 when empty"
        min={100}
        max={60_000}
        value={typeof config.timeoutMs === 'number' ? config.timeoutMs : ''}
        onChange={(v) => onChange(withOptionalNumber(config, 'timeoutMs', v))}
      />
      <Text size="xs">{TEMPLATE_HELP}</Text>
    </>
  );
}

function withOptionalNumber(config: Config, key: string, v: string | number): Config {
  const next = { ...config };
  if (typeof v === 'number') next[key] = v;
  else delete next[key];
  return next;
}

/** The config form of one node, by its type. */
export function NodeConfigFields({ node, onChange }: { node: WorkflowNode; onChange(c: Config): void }) {
  const config = (node.config ?? {}) as Config;
  switch (node.type) {
    case 'speak':
      return (
        <Textarea
          label="Text to say"
          description={TEMPLATE_HELP}
          autosize
          minRows={2}
          maxLength={5000}
          value={str(config.text)}
          onChange={(e) => onChange({ ...config, text: e.currentTarget.value })}
        />
      );
    case 'condition':
      return (
        <TextInput
          label="Expression"
          description={EXPRESSION_HELP}
          ff="monospace"
          maxLength={2000}
          value={str(config.expression)}
          onChange={(e) => onChange({ ...config, expression: e.currentTarget.value })}
        />
      );
    case 'mcp_call':
      return <McpCallFields config={config} onChange={onChange} />;
    case 'llm_prompt':
      return (
        <>
          <Textarea
            label="Prompt"
            description={TEMPLATE_HELP}
            autosize
            minRows={3}
            maxLength={20_000}
            value={str(config.prompt)}
            onChange={(e) => onChange({ ...config, prompt: e.currentTarget.value })}
          />
          <TextInput
            label="Model"
            description="Empty: the platform's model"
            value={str(config.model)}
            onChange={(e) => {
              const { model: _model, ...rest } = config;
              const model = e.currentTarget.value;
              onChange(model ? { ...rest, model } : rest);
            }}
          />
          <NumberInput
            label="Max tokens"
            description="1 to 8 192"
            min={1}
            max={8192}
            value={typeof config.maxTokens === 'number' ? config.maxTokens : ''}
            onChange={(v) => onChange(withOptionalNumber(config, 'maxTokens', v))}
          />
        </>
      );
    case 'press_digits':
    case 'transfer_call':
    case 'end_call':
      return <CallNodeFields type={node.type} config={config} onChange={onChange} />;
    default:
      return (
        <Text size="sm">
          {node.type === 'start' ? 'Where every run begins; its result is the input.' : 'Where a path ends.'}
        </Text>
      );
  }
}

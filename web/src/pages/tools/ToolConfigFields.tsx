import { NativeSelect, Stack, Textarea, TextInput } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { environmentStore } from '../../api/client';
import { mcpServersQuery, mcpServerToolsQuery } from '../../api/queries';
import { ErrorAlert } from '../../components/ui';
import { useStoredValue } from '../../store';
import { HeaderRows } from './HeaderRows';
import { OAuthTokenSelect } from './OAuthTokenSelect';
import { HTTP_METHODS, type ToolForm } from './toolForm';

type Change<K extends keyof ToolForm> = (value: Partial<ToolForm[K]>) => void;

/** A webhook tool: the request it sends (arguments are the JSON body, or the query string for GET). */
export function WebhookConfigFields(props: { value: ToolForm['webhook']; onChange: Change<'webhook'> }) {
  const { value, onChange } = props;
  return (
    <Stack>
      <TextInput
        label="URL"
        required
        type="url"
        placeholder="https://crm.example.com/orders/lookup"
        value={value.url}
        onChange={(e) => onChange({ url: e.currentTarget.value })}
      />
      <NativeSelect
        label="Method"
        description="The arguments are sent as the JSON body (as the query string for GET)"
        value={value.method}
        data={[...HTTP_METHODS]}
        onChange={(e) => onChange({ method: e.currentTarget.value })}
      />
      <HeaderRows rows={value.headers} onChange={(headers) => onChange({ headers })} />
      <TextInput
        label="Timeout (ms)"
        description="100 to 30000; 10000 when empty"
        inputMode="numeric"
        value={value.timeoutMs}
        onChange={(e) => onChange({ timeoutMs: e.currentTarget.value })}
      />
      <OAuthTokenSelect value={value.oauthTokenId} onChange={(oauthTokenId) => onChange({ oauthTokenId })} />
    </Stack>
  );
}

/** An MCP tool: one tool of one of your MCP servers, picked from what the server offers. */
export function McpConfigFields(props: {
  value: ToolForm['mcp'];
  onChange: Change<'mcp'>;
  /** The chosen tool's input schema, to start the parameters from. */
  onToolSchema(schema: Record<string, unknown>): void;
}) {
  const { value, onChange } = props;
  const environment = useStoredValue(environmentStore);
  const servers = useQuery(mcpServersQuery(environment));
  const tools = useQuery(mcpServerToolsQuery(environment, value.serverId));
  return (
    <Stack>
      <ErrorAlert error={servers.error ?? tools.error} />
      <NativeSelect
        label="MCP server"
        required
        value={value.serverId}
        onChange={(e) => onChange({ serverId: e.currentTarget.value, toolName: '' })}
        data={[
          {
            value: '',
            label: servers.data?.length === 0 ? 'No MCP servers registered' : 'Choose a server',
          },
          ...(servers.data ?? []).map((s) => ({ value: s.id, label: s.name })),
        ]}
      />
      <NativeSelect
        label="Tool"
        required
        disabled={!tools.data}
        value={value.toolName}
        description="Its input schema becomes the parameters below, which you can change"
        onChange={(e) => {
          const toolName = e.currentTarget.value;
          onChange({ toolName });
          const tool = tools.data?.tools.find((t) => t.name === toolName);
          if (tool) props.onToolSchema(tool.inputSchema);
        }}
        data={[
          { value: '', label: 'Choose a tool' },
          ...(tools.data?.tools ?? []).map((t) => ({ value: t.name, label: t.name })),
        ]}
      />
    </Stack>
  );
}

/** A prompt tool: a prompt for the model, `{{input}}` replaced by the arguments. */
export function PromptConfigFields(props: { value: ToolForm['prompt']; onChange: Change<'prompt'> }) {
  const { value, onChange } = props;
  return (
    <Stack>
      <Textarea
        label="Prompt"
        required
        autosize
        minRows={3}
        description="{{input}} is replaced by the arguments"
        placeholder="Summarize for a caller: {{input}}"
        value={value.prompt}
        onChange={(e) => onChange({ prompt: e.currentTarget.value })}
      />
      <TextInput
        label="Model"
        description="The platform's default model when empty"
        value={value.model}
        onChange={(e) => onChange({ model: e.currentTarget.value })}
      />
      <TextInput
        label="Most tokens"
        description="1 to 8192"
        inputMode="numeric"
        value={value.maxTokens}
        onChange={(e) => onChange({ maxTokens: e.currentTarget.value })}
      />
    </Stack>
  );
}

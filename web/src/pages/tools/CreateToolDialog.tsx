import { Button, Group, Modal, SegmentedControl, Stack, Text, Textarea, TextInput } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { api, unwrap } from '../../api/client';
import { ErrorAlert } from '../../components/ui';
import { ParameterBuilder } from './ParameterBuilder';
import { parameterRows } from './parameters';
import { McpConfigFields, PromptConfigFields, WebhookConfigFields } from './ToolConfigFields';
import { createToolBody, emptyToolForm, type ToolForm, type ToolType } from './toolForm';

const TYPES: { value: ToolType; label: string; note: string }[] = [
  {
    value: 'webhook',
    label: 'Webhook',
    note: 'Sends an HTTP request to your endpoint; the response is the result.',
  },
  { value: 'mcp', label: 'MCP', note: 'Calls one tool of one of your MCP servers.' },
  { value: 'prompt', label: 'Prompt', note: 'Asks the model with your prompt; its answer is the result.' },
];

/** "Create a tool": name, description, type with that type's fields, and the parameter schema. */
export function CreateToolDialog(props: { opened: boolean; onClose(): void; onCreated(id: string): void }) {
  const [form, setForm] = useState<ToolForm>(emptyToolForm);
  const change = (value: Partial<ToolForm>) => setForm((f) => ({ ...f, ...value }));
  const create = useMutation({
    mutationFn: async () =>
      unwrap(await api.POST('/api/v2/developers/tools', { body: createToolBody(form) })).data,
    onSuccess: (tool) => {
      setForm(emptyToolForm());
      create.reset();
      props.onCreated(tool.id);
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };
  return (
    <Modal opened={props.opened} onClose={props.onClose} title="Create a tool" size="xl">
      <form onSubmit={submit}>
        <Stack>
          <TextInput
            label="Name"
            description="What the model calls it, e.g. lookup_order"
            required
            value={form.name}
            onChange={(e) => change({ name: e.currentTarget.value })}
            data-autofocus
          />
          <Textarea
            label="Description"
            description="Tells the model when to use it"
            autosize
            minRows={1}
            value={form.description}
            onChange={(e) => change({ description: e.currentTarget.value })}
          />
          <Stack gap={4}>
            <Text size="sm" fw={500} id="tool-type-label">
              Type
            </Text>
            <SegmentedControl
              aria-labelledby="tool-type-label"
              value={form.type}
              onChange={(value) => change({ type: value as ToolType })}
              data={TYPES.map((t) => ({ value: t.value, label: t.label }))}
            />
            <Text size="xs" c="dimmed">
              {TYPES.find((t) => t.value === form.type)?.note}
            </Text>
          </Stack>
          {form.type === 'webhook' ? (
            <WebhookConfigFields
              value={form.webhook}
              onChange={(v) => setForm((f) => ({ ...f, webhook: { ...f.webhook, ...v } }))}
            />
          ) : form.type === 'mcp' ? (
            <McpConfigFields
              value={form.mcp}
              onChange={(v) => setForm((f) => ({ ...f, mcp: { ...f.mcp, ...v } }))}
              onToolSchema={(schema) => change({ parameters: parameterRows(schema) })}
            />
          ) : (
            <PromptConfigFields
              value={form.prompt}
              onChange={(v) => setForm((f) => ({ ...f, prompt: { ...f.prompt, ...v } }))}
            />
          )}
          <ParameterBuilder rows={form.parameters} onChange={(parameters) => change({ parameters })} />
          <ErrorAlert error={create.error} title="The tool was not created" />
          <Group justify="flex-end">
            <Button variant="default" onClick={props.onClose}>
              Cancel
            </Button>
            <Button type="submit" loading={create.isPending}>
              Create tool
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}

import {
  ActionIcon,
  Button,
  Checkbox,
  Fieldset,
  Group,
  NativeSelect,
  Stack,
  Text,
  TextInput,
} from '@mantine/core';
import { IconTrash } from '@tabler/icons-react';
import { JsonBlock } from './McpToolList';
import {
  emptyParameter,
  PARAMETER_TYPES,
  type ParameterRow,
  type ParameterType,
  parametersSchema,
} from './parameters';

/** The tool's parameters as rows (name, type, description, required), and the JSON Schema they make. */
export function ParameterBuilder(props: { rows: ParameterRow[]; onChange(rows: ParameterRow[]): void }) {
  const { rows, onChange } = props;
  const update = (index: number, change: Partial<ParameterRow>) =>
    onChange(rows.map((row, i) => (i === index ? { ...row, ...change } : row)));
  return (
    <Fieldset legend="Parameters" variant="unstyled">
      <Text size="xs" c="dimmed" mb="xs">
        The arguments the model passes; each call is checked against them.
      </Text>
      <Stack gap="sm">
        {rows.map((row, index) => {
          const n = index + 1;
          return (
            // biome-ignore lint/suspicious/noArrayIndexKey: rows have no identity but their place
            <Group key={index} gap="xs" align="flex-end" wrap="wrap" data-testid="parameter-row">
              <TextInput
                label={`Parameter ${n} name`}
                placeholder="orderId"
                value={row.name}
                onChange={(e) => update(index, { name: e.currentTarget.value })}
                style={{ flex: '1 1 140px' }}
              />
              <NativeSelect
                label={`Parameter ${n} type`}
                value={row.type}
                data={PARAMETER_TYPES}
                onChange={(e) => update(index, { type: e.currentTarget.value as ParameterType })}
                style={{ flex: '0 1 120px' }}
              />
              <TextInput
                label={`Parameter ${n} description`}
                value={row.description}
                onChange={(e) => update(index, { description: e.currentTarget.value })}
                style={{ flex: '2 1 200px' }}
              />
              <Checkbox
                label="Required"
                aria-label={`Parameter ${n} required`}
                checked={row.required}
                onChange={(e) => update(index, { required: e.currentTarget.checked })}
                mb={8}
              />
              <ActionIcon
                variant="default"
                size="lg"
                aria-label={`Remove parameter ${n}`}
                onClick={() => onChange(rows.filter((_, i) => i !== index))}
              >
                <IconTrash size={16} aria-hidden />
              </ActionIcon>
            </Group>
          );
        })}
        <Group>
          <Button variant="default" size="xs" onClick={() => onChange([...rows, emptyParameter()])}>
            Add parameter
          </Button>
        </Group>
        <details>
          <summary>As JSON Schema</summary>
          <JsonBlock value={parametersSchema(rows)} label="Parameters as JSON Schema" />
        </details>
      </Stack>
    </Fieldset>
  );
}

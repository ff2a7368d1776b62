import { ActionIcon, Button, Fieldset, Group, Stack, Text, TextInput } from '@mantine/core';
import { IconTrash } from '@tabler/icons-react';
import { useId } from 'react';

export interface HeaderRow {
  name: string;
  value: string;
}

/** The rows as the API's headers object (rows without a name are left out); undefined when empty. */
export function headersObject(rows: readonly HeaderRow[]): Record<string, string> | undefined {
  const filled = rows.filter((r) => r.name.trim() !== '');
  if (filled.length === 0) return undefined;
  return Object.fromEntries(filled.map((r) => [r.name.trim(), r.value]));
}

/**
 * HTTP headers as name/value rows, added and removed one by one; values may refer to stored secrets
 * as {{secrets.NAME}} (the note beside the field says so).
 */
export function HeaderRows(props: { rows: HeaderRow[]; onChange(rows: HeaderRow[]): void }) {
  const { rows, onChange } = props;
  const noteId = useId();
  const update = (index: number, change: Partial<HeaderRow>) =>
    onChange(rows.map((row, i) => (i === index ? { ...row, ...change } : row)));
  return (
    <Fieldset legend="Headers" variant="unstyled">
      <Text size="xs" c="dimmed" mb="xs" id={noteId}>
        Sent with every request. Values may use <code>{'{{secrets.NAME}}'}</code> to insert a stored secret
        (Tools → Secrets); values are stored encrypted and never shown again.
      </Text>
      <Stack gap="xs">
        {rows.map((row, index) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: rows have no identity but their place
          <Group key={index} gap="xs" wrap="nowrap" align="flex-end">
            <TextInput
              label={`Header ${index + 1} name`}
              placeholder="X-Api-Key"
              value={row.name}
              onChange={(e) => update(index, { name: e.currentTarget.value })}
              style={{ flex: 1, minWidth: 0 }}
            />
            <TextInput
              label={`Header ${index + 1} value`}
              placeholder="{{secrets.CRM_TOKEN}}"
              aria-describedby={noteId}
              value={row.value}
              onChange={(e) => update(index, { value: e.currentTarget.value })}
              style={{ flex: 1, minWidth: 0 }}
            />
            <ActionIcon
              variant="default"
              size="lg"
              aria-label={`Remove header ${index + 1}`}
              onClick={() => onChange(rows.filter((_, i) => i !== index))}
            >
              <IconTrash size={16} aria-hidden />
            </ActionIcon>
          </Group>
        ))}
        <Group>
          <Button variant="default" size="xs" onClick={() => onChange([...rows, { name: '', value: '' }])}>
            Add header
          </Button>
        </Group>
      </Stack>
    </Fieldset>
  );
}

import { Button, Code, CopyButton, Group, Stack, Text, VisuallyHidden } from '@mantine/core';

/** A value to paste elsewhere (a URL for the carrier's console), labelled, with a copy button. */
export function CopyField({ label, value, testId }: { label: string; value: string; testId?: string }) {
  return (
    <Stack gap={2}>
      <Text size="xs" fw={700}>
        {label}
      </Text>
      <Group gap="xs" wrap="nowrap" align="center">
        <Code data-testid={testId} style={{ wordBreak: 'break-all', flex: 1 }}>
          {value}
        </Code>
        <CopyButton value={value}>
          {({ copied, copy }) => (
            <Button size="compact-xs" variant="default" onClick={copy}>
              {copied ? 'Copied' : 'Copy'}
              <VisuallyHidden> {label}</VisuallyHidden>
            </Button>
          )}
        </CopyButton>
      </Group>
    </Stack>
  );
}

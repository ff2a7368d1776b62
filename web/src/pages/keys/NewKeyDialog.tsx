import { Alert, Button, Code, CopyButton, Group, Modal, Stack } from '@mantine/core';
import type { CreatedKey } from './CreateKeyDialog';

/** "Copy your new key now": the only time a key's full secret is shown, with a copy button. */
export function NewKeyDialog({ created, onClose }: { created: CreatedKey | null; onClose(): void }) {
  return (
    <Modal opened={created !== null} onClose={onClose} title="Copy your new key now" size="lg">
      {created ? (
        <Stack>
          <Alert color="yellow" role="status">
            This is the only time the full key is shown. Store it somewhere safe: later you will see only{' '}
            <Code>{created.prefix}</Code>.
          </Alert>
          <Code block data-testid="full-key" style={{ wordBreak: 'break-all', whiteSpace: 'pre-wrap' }}>
            {created.fullKey}
          </Code>
          <Group justify="flex-end">
            <CopyButton value={created.fullKey}>
              {({ copied, copy }) => (
                <Button variant="default" onClick={copy}>
                  {copied ? 'Copied' : 'Copy key'}
                </Button>
              )}
            </CopyButton>
            <Button onClick={onClose}>I stored it</Button>
          </Group>
        </Stack>
      ) : null}
    </Modal>
  );
}

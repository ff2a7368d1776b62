import { Alert, Button, Code, CopyButton, Group, Modal, Stack } from '@mantine/core';

/** A secret shown once (a new webhook's or a rotated one), with a copy button. */
export function SecretDialog(props: { secret: string | null; title: string; note: string; onClose(): void }) {
  return (
    <Modal opened={props.secret !== null} onClose={props.onClose} title={props.title} size="lg">
      <Stack>
        <Alert color="yellow" role="status">
          {props.note}
        </Alert>
        <Code block data-testid="secret" style={{ wordBreak: 'break-all', whiteSpace: 'pre-wrap' }}>
          {props.secret}
        </Code>
        <Group justify="flex-end">
          <CopyButton value={props.secret ?? ''}>
            {({ copied, copy }) => (
              <Button variant="default" onClick={copy}>
                {copied ? 'Copied' : 'Copy secret'}
              </Button>
            )}
          </CopyButton>
          <Button onClick={props.onClose}>I stored it</Button>
        </Group>
      </Stack>
    </Modal>
  );
}

import { Button, Group, Modal, Stack, Text } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { ErrorAlert } from './ui';

/**
 * "Delete this …?": says what happens, runs `action` on confirmation (its error shown in the dialog),
 * then calls onDone. The dialog is open while `opened`.
 */
export function ConfirmDialog(props: {
  opened: boolean;
  title: string;
  children: ReactNode;
  confirmLabel: string;
  action(): Promise<unknown>;
  onClose(): void;
  onDone(): void;
}) {
  const run = useMutation({
    mutationFn: props.action,
    onSuccess: () => {
      run.reset();
      props.onDone();
    },
  });
  const close = () => {
    run.reset();
    props.onClose();
  };
  return (
    <Modal opened={props.opened} onClose={close} title={props.title}>
      <Stack>
        <Text>{props.children}</Text>
        <ErrorAlert error={run.error} title="That did not work" />
        <Group justify="flex-end">
          <Button variant="default" onClick={close}>
            Cancel
          </Button>
          <Button color="red.8" onClick={() => run.mutate()} loading={run.isPending}>
            {props.confirmLabel}
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}

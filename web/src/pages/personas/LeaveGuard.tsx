import { Button, Group, Modal, Stack, Text } from '@mantine/core';
import { useEffect } from 'react';
import { useBlocker } from 'react-router';

/** A navigation's state that leaves without asking (the persona was deleted: nothing to keep). */
export const LEAVING_FOR_GOOD = { leavingForGood: true };

/**
 * While the draft is not on the server, leaving asks first: a link in the console opens "Leave
 * with unsaved changes?", and closing or reloading the tab gets the browser's own question.
 */
export function LeaveGuard({ unsaved }: { unsaved: boolean }) {
  const blocker = useBlocker(
    ({ nextLocation }) =>
      unsaved && (nextLocation.state as typeof LEAVING_FOR_GOOD | null)?.leavingForGood !== true,
  );
  useEffect(() => {
    if (!unsaved) return;
    const ask = (event: BeforeUnloadEvent) => {
      event.preventDefault();
      // older browsers show the question only when returnValue is set
      event.returnValue = '';
    };
    window.addEventListener('beforeunload', ask);
    return () => window.removeEventListener('beforeunload', ask);
  }, [unsaved]);
  // the save landed while the question was open: nothing is lost by going on
  useEffect(() => {
    if (blocker.state === 'blocked' && !unsaved) blocker.proceed();
  }, [blocker, unsaved]);

  return (
    <Modal
      opened={blocker.state === 'blocked'}
      onClose={() => blocker.reset?.()}
      title="Leave with unsaved changes?"
    >
      <Stack>
        <Text size="sm">
          The server has not accepted your latest changes to this persona. This browser keeps them: they come
          back when you open the persona again, until you save or discard them.
        </Text>
        <Group justify="flex-end">
          <Button variant="default" onClick={() => blocker.reset?.()} data-autofocus>
            Stay on this page
          </Button>
          <Button onClick={() => blocker.proceed?.()}>Leave</Button>
        </Group>
      </Stack>
    </Modal>
  );
}

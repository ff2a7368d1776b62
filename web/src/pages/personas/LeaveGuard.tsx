import { Button, Group, Modal, Stack, Text } from '@mantine/core';
import { useEffect, useState } from 'react';
import { useNavigate } from 'react-router';

/** A navigation's state that leaves without asking (the persona was deleted: nothing to keep). */
export const LEAVING_FOR_GOOD = { leavingForGood: true };

const BASE = '/console';

/**
 * The console path a click on a link would open, when it is a plain left click on a link to another
 * page of the console (not a new tab, not a download, not another site).
 */
function consolePathOf(event: MouseEvent): string | null {
  if (event.defaultPrevented || event.button !== 0) return null;
  if (event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return null;
  const link = (event.target as Element | null)?.closest?.('a[href]') as HTMLAnchorElement | null;
  if (!link || (link.target && link.target !== '_self') || link.hasAttribute('download')) return null;
  const url = new URL(link.href, window.location.href);
  if (url.origin !== window.location.origin || !url.pathname.startsWith(`${BASE}/`)) return null;
  if (url.pathname === window.location.pathname && url.search === window.location.search) return null;
  return url.pathname.slice(BASE.length) + url.search + url.hash;
}

/**
 * While the draft is not on the server, leaving asks first: a link in the console opens "Leave
 * with unsaved changes?", and closing or reloading the tab gets the browser's own question. Links
 * are held by a click listener on the document that runs before the router's (the console's router
 * has no navigation blocker: a data router would add about 18 KB gzipped to every first load); a
 * navigation the page makes itself, such as after deleting the persona, goes through.
 */
export function LeaveGuard({ unsaved }: { unsaved: boolean }) {
  const navigate = useNavigate();
  const [asked, setAsked] = useState<string | null>(null);
  useEffect(() => {
    if (!unsaved) return;
    const hold = (event: MouseEvent) => {
      const path = consolePathOf(event);
      if (path === null) return;
      event.preventDefault();
      event.stopPropagation();
      setAsked(path);
    };
    const ask = (event: BeforeUnloadEvent) => {
      event.preventDefault();
      // older browsers show the question only when returnValue is set
      event.returnValue = '';
    };
    document.addEventListener('click', hold, true);
    window.addEventListener('beforeunload', ask);
    return () => {
      document.removeEventListener('click', hold, true);
      window.removeEventListener('beforeunload', ask);
    };
  }, [unsaved]);
  const leave = () => {
    const to = asked;
    setAsked(null);
    if (to !== null) navigate(to);
  };
  // the save landed while the question was open: nothing is lost by going on
  // biome-ignore lint/correctness/useExhaustiveDependencies: leave reads the same state
  useEffect(() => {
    if (asked !== null && !unsaved) leave();
  }, [asked, unsaved]);

  return (
    <Modal opened={asked !== null} onClose={() => setAsked(null)} title="Leave with unsaved changes?">
      <Stack>
        <Text size="sm">
          The server has not accepted your latest changes to this persona. This browser keeps them: they come
          back when you open the persona again, until you save or discard them.
        </Text>
        <Group justify="flex-end">
          <Button variant="default" onClick={() => setAsked(null)} data-autofocus>
            Stay on this page
          </Button>
          <Button onClick={leave}>Leave</Button>
        </Group>
      </Stack>
    </Modal>
  );
}

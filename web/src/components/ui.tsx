import { Alert, Badge, Center, Group, Loader, Stack, Text, Title } from '@mantine/core';
import { type ReactNode, useEffect, useRef, useState } from 'react';
import { errorText } from '../api/client';

export const PageLoader = () => (
  <Center py="xl" role="status" aria-label="Loading">
    <Loader />
  </Center>
);

/** A page's heading row: title, one line of explanation, actions on the right (wrapping on phones). */
export function PageHeader({
  title,
  description,
  actions,
}: {
  title: string;
  description?: ReactNode;
  actions?: ReactNode;
}) {
  return (
    <Group justify="space-between" align="flex-start" mb="md" gap="sm">
      <Stack gap={4} style={{ minWidth: 0, flex: '1 1 240px' }}>
        <Title order={1} size="h2" style={{ overflowWrap: 'anywhere' }}>
          {title}
        </Title>
        {description ? (
          <Text c="dimmed" size="sm" style={{ overflowWrap: 'anywhere' }}>
            {description}
          </Text>
        ) : null}
      </Stack>
      {actions ? <Group gap="xs">{actions}</Group> : null}
    </Group>
  );
}

/** An error from the API (or anything else), said in a role="alert" box. */
export function ErrorAlert({ error, title = 'Something went wrong' }: { error: unknown; title?: string }) {
  if (!error) return null;
  return (
    <Alert color="red" title={title} role="alert" mb="md">
      {errorText(error)}
    </Alert>
  );
}

/** Shown where a list has nothing in it yet. */
export function Empty({ children }: { children: ReactNode }) {
  return (
    <Text c="dimmed" py="lg" ta="center">
      {children}
    </Text>
  );
}

const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

export function formatTime(value: string | null | undefined): string {
  return value ? dateTime.format(new Date(value)) : '—';
}

export function formatNumber(value: number, digits = 0): string {
  return value.toLocaleString(undefined, { maximumFractionDigits: digits });
}

/** Text colours with at least 4.5:1 contrast on white (Mantine's green and orange shades fall short). */
export const GOOD = '#1e6b30';
export const WARN = '#8a4500';

const STATUS_COLORS: Record<string, string> = {
  draft: 'gray.8',
  submitted: 'blue.9',
  published: GOOD,
  rejected: 'red.9',
  active: GOOD,
  failing: WARN,
  disabled: 'gray.8',
  delivered: GOOD,
  failed: 'red.9',
  pending: 'blue.9',
  running: 'blue.9',
  completed: GOOD,
  skipped: 'gray.8',
  cancelled: 'gray.8',
  ended: 'gray.8',
  approved: GOOD,
  pending_review: 'blue.9',
  connected: GOOD,
  error: 'red.9',
  unknown: 'gray.8',
  expired: WARN,
  revoked: 'gray.8',
  queued: 'blue.9',
  ringing: 'blue.9',
  'in-progress': GOOD,
  busy: WARN,
  'no-answer': WARN,
  canceled: 'gray.8',
};

/**
 * A badge's text never shrinks to an ellipsis ("PUBLISH…"): Mantine's label clips its overflow, which
 * lets a table column or a flex row squeeze the badge below its text; here the text sets its width.
 */
const WHOLE_TEXT = { root: { flexShrink: 0, overflow: 'visible' }, label: { overflow: 'visible' } } as const;

/** A status as an outlined badge, in a shade dark enough for text contrast, its whole word always shown. */
export function StatusBadge({ status }: { status: string }) {
  return (
    <Badge
      variant="outline"
      color={STATUS_COLORS[status] ?? 'gray.8'}
      data-status={status}
      styles={WHOLE_TEXT}
    >
      {status.replace(/_/g, ' ')}
    </Badge>
  );
}

/**
 * A wide table that scrolls sideways on narrow screens inside its own box (the page never does);
 * the box takes keyboard focus so it can be scrolled without a mouse, and, while its table is wider
 * than the screen, a line above it says so.
 */
export function ScrollTable({ minWidth, children }: { minWidth: number; children: ReactNode }) {
  const box = useRef<HTMLDivElement>(null);
  const [overflowing, setOverflowing] = useState(false);
  useEffect(() => {
    const element = box.current;
    if (!element) return;
    const measure = () => setOverflowing(element.scrollWidth > element.clientWidth + 1);
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(element);
    return () => observer.disconnect();
  }, []);
  return (
    <>
      {overflowing ? (
        <Text size="xs" c="dimmed" mb={4} data-testid="scroll-hint">
          Scroll sideways for more columns →
        </Text>
      ) : null}
      <div
        ref={box}
        // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must be reachable by keyboard (WCAG 2.1.1)
        tabIndex={0}
        style={{ overflowX: 'auto', maxWidth: '100%', position: 'relative' }}
        data-scroll-table
      >
        <div style={{ minWidth }}>{children}</div>
      </div>
    </>
  );
}

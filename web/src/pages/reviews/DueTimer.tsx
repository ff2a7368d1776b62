import { Badge, Group, Text } from '@mantine/core';
import { useEffect, useState } from 'react';
import { formatTime, WARN } from '../../components/ui';

/** The time now, renewed every `intervalMs` (a countdown's clock). */
function useNow(intervalMs = 30_000): number {
  const [now, setNow] = useState(Date.now);
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), intervalMs);
    return () => clearInterval(timer);
  }, [intervalMs]);
  return now;
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** A span as its two largest units: "3 d 4 h", "4 h 12 min", "12 min", "less than a minute". */
export function spanText(ms: number): string {
  if (ms < MINUTE) return 'less than a minute';
  const days = Math.floor(ms / DAY);
  const hours = Math.floor((ms % DAY) / HOUR);
  const minutes = Math.floor((ms % HOUR) / MINUTE);
  if (days > 0) return hours > 0 ? `${days} d ${hours} h` : `${days} d`;
  if (hours > 0) return minutes > 0 ? `${hours} h ${minutes} min` : `${hours} h`;
  return `${minutes} min`;
}

/**
 * When a pending review becomes overdue, counted down from its due time (5 business days after
 * submission), or how long it has been overdue; `overdue` is the review workflow's own mark.
 */
export function DueTimer({ dueBy, overdue }: { dueBy: string; overdue: boolean }) {
  const now = useNow();
  const left = Date.parse(dueBy) - now;
  const late = overdue || left <= 0;
  return (
    <Group gap={6} wrap="wrap" data-testid="due-timer" data-overdue={late}>
      {late ? (
        <Badge variant="outline" color="red.9" styles={{ root: { flexShrink: 0, overflow: 'visible' } }}>
          overdue
        </Badge>
      ) : null}
      <Text size="sm" c={late ? WARN : undefined}>
        {left > 0 ? `Overdue in ${spanText(left)}` : `Overdue by ${spanText(-left)}`}
      </Text>
      <Text size="xs" c="dimmed">
        (due {formatTime(dueBy)})
      </Text>
    </Group>
  );
}

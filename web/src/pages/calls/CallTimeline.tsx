import { Text, Timeline } from '@mantine/core';
import type { Call } from './call-columns';

const timeOfDay = new Intl.DateTimeFormat(undefined, { timeStyle: 'medium' });

/** Each status the call reached, in order, with when (and how long after the first). */
export function CallTimeline({ call }: { call: Call }) {
  const first = Date.parse(call.timeline[0]?.at ?? call.createdAt);
  return (
    <Timeline
      active={call.timeline.length - 1}
      bulletSize={14}
      lineWidth={2}
      aria-label="Timeline"
      data-testid="call-timeline"
    >
      {call.timeline.map((step) => (
        <Timeline.Item key={step.status} title={step.status} data-status={step.status}>
          <Text size="xs" c="dimmed">
            {timeOfDay.format(new Date(step.at))} · +
            {(Math.max(0, Date.parse(step.at) - first) / 1000).toFixed(1)} s
          </Text>
        </Timeline.Item>
      ))}
    </Timeline>
  );
}

import { Text, Timeline } from '@mantine/core';
import type { Call } from './call-columns';

const timeOfDay = new Intl.DateTimeFormat(undefined, { timeStyle: 'medium' });

/** Each status the call reached, in order, with its time of day (to the second). */
export function CallTimeline({ call }: { call: Call }) {
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
            {timeOfDay.format(new Date(step.at))}
          </Text>
        </Timeline.Item>
      ))}
    </Timeline>
  );
}

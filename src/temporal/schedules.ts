import { type Client, ScheduleAlreadyRunning, ScheduleOverlapPolicy } from '@temporalio/client';
import type { Logger } from '../logging/logger';

/** One schedule per task queue, so it always targets workers of this deployment. */
export const housekeepingScheduleId = (taskQueue: string) => `housekeeping-${taskQueue}`;

/**
 * The hourly `housekeeping` schedule (Temporal Web UI → Schedules): removes records that only
 * expire, such as abandoned OAuth authorizations. Created by the first worker that starts; an
 * existing schedule is left as it is (operators may pause it there).
 */
export async function ensureHousekeepingSchedule(client: Client, taskQueue: string, logger: Logger) {
  const scheduleId = housekeepingScheduleId(taskQueue);
  try {
    await client.withDeadline(Date.now() + 10_000, () =>
      client.schedule.create({
        scheduleId,
        spec: { intervals: [{ every: '1 hour' }] },
        policies: { overlap: ScheduleOverlapPolicy.SKIP },
        action: {
          type: 'startWorkflow',
          workflowType: 'housekeepingWorkflow',
          workflowId: scheduleId,
          taskQueue,
          workflowExecutionTimeout: '10 minutes',
        },
      }),
    );
    logger.info({ scheduleId }, 'created the housekeeping schedule');
  } catch (error) {
    if (error instanceof ScheduleAlreadyRunning) return;
    // not fatal: the next worker start tries again, and nothing depends on it within the hour
    logger.warn({ err: error, scheduleId }, 'could not create the housekeeping schedule');
  }
}

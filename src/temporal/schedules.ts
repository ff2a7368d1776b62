import {
  type Client,
  ScheduleAlreadyRunning,
  ScheduleNotFoundError,
  ScheduleOverlapPolicy,
} from '@temporalio/client';
import type { Logger } from '../logging/logger';

/** One schedule per task queue, so it always targets workers of this deployment. */
export const housekeepingScheduleId = (taskQueue: string) => `housekeeping-${taskQueue}`;

/**
 * The hourly `housekeeping` schedule (Temporal Web UI → Schedules): removes records that only
 * expire, such as abandoned OAuth authorizations. Created by the first `background` worker that
 * starts; an existing schedule is left as it is (operators may pause it there). The schedule of the
 * one queue before the pools (`housekeeping-<prefix>`, whose runs no worker would take) is deleted.
 */
export async function ensureHousekeepingSchedule(
  client: Client,
  taskQueue: string,
  logger: Logger,
  queuePrefix?: string,
) {
  if (queuePrefix) await deleteSchedule(client, housekeepingScheduleId(queuePrefix), logger);
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

async function deleteSchedule(client: Client, scheduleId: string, logger: Logger): Promise<void> {
  try {
    await client.withDeadline(Date.now() + 10_000, () => client.schedule.getHandle(scheduleId).delete());
    logger.info({ scheduleId }, 'deleted the housekeeping schedule of the single task queue');
  } catch (error) {
    if (!(error instanceof ScheduleNotFoundError) && (error as { code?: number }).code !== 5)
      logger.warn({ err: error, scheduleId }, 'could not delete the old housekeeping schedule');
  }
}

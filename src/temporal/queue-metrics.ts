import type { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import type { Worker } from '@temporalio/worker';
import { Gauge } from 'prom-client';
import { registry } from '../telemetry/metrics';

/** A task queue whose backlog a process exports, under its pool's name. */
export interface ExportedQueue {
  pool: string;
  taskQueue: string;
}

/** One queue's stats for one kind of task, as Temporal's DescribeTaskQueue (with stats) reports them. */
export interface QueueStats extends ExportedQueue {
  taskType: 'workflow' | 'activity';
  backlogCount: number;
  backlogAgeSeconds: number;
  addRate: number;
  dispatchRate: number;
  pollers: number;
}

/** Scrapes closer together than this share one round of DescribeTaskQueue calls. */
export const STATS_MAX_AGE_MS = 2000;

const TASK_TYPES = [
  ['workflow', temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW],
  ['activity', temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY],
] as const;

const seconds = (d: { seconds?: unknown; nanos?: number | null } | null | undefined) =>
  d ? Number(d.seconds ?? 0) + (d.nanos ?? 0) / 1e9 : 0;

/** Each queue's stats, workflow and activity tasks (DescribeTaskQueue with `reportStats`). */
export async function describeQueues(
  client: Client,
  namespace: string,
  queues: readonly ExportedQueue[],
): Promise<QueueStats[]> {
  const rounds = queues.flatMap((queue) =>
    TASK_TYPES.map(async ([taskType, type]): Promise<QueueStats> => {
      const res = await client.workflowService.describeTaskQueue({
        namespace,
        taskQueue: {
          name: queue.taskQueue,
          kind: temporal.api.enums.v1.TaskQueueKind.TASK_QUEUE_KIND_NORMAL,
        },
        taskQueueType: type,
        reportStats: true,
      });
      const stats = res.stats;
      return {
        ...queue,
        taskType,
        backlogCount: Number(stats?.approximateBacklogCount ?? 0),
        backlogAgeSeconds: seconds(stats?.approximateBacklogAge),
        addRate: stats?.tasksAddRate ?? 0,
        dispatchRate: stats?.tasksDispatchRate ?? 0,
        pollers: res.pollers?.length ?? 0,
      };
    }),
  );
  return Promise.all(rounds);
}

const exported = new Map<string, ExportedQueue>();
let source: { client: Client; namespace: string } | undefined;
let cached: { at: number; stats: Promise<QueueStats[]> } | undefined;

function currentStats(): Promise<QueueStats[]> {
  if (!source || exported.size === 0) return Promise.resolve([]);
  if (cached && Date.now() - cached.at < STATS_MAX_AGE_MS) return cached.stats;
  const stats = describeQueues(source.client, source.namespace, [...exported.values()]);
  cached = { at: Date.now(), stats };
  stats.catch(() => {
    cached = undefined;
  });
  return stats;
}

function queueGauge(name: string, help: string, value: (s: QueueStats) => number): Gauge {
  return new Gauge({
    name,
    help,
    labelNames: ['pool', 'task_queue', 'task_type'] as const,
    registers: [registry],
    async collect() {
      this.reset();
      const stats = await currentStats().catch(() => []);
      for (const s of stats)
        this.set({ pool: s.pool, task_queue: s.taskQueue, task_type: s.taskType }, value(s));
    },
  });
}

queueGauge(
  'temporal_task_queue_backlog',
  'Tasks waiting in a task queue for a worker (approximate, from DescribeTaskQueue), by pool and task type',
  (s) => s.backlogCount,
);
queueGauge(
  'temporal_task_queue_backlog_age_seconds',
  'How long the oldest waiting task of a task queue has waited (approximate), by pool and task type',
  (s) => s.backlogAgeSeconds,
);
queueGauge('temporal_task_queue_add_rate', 'Tasks added to a task queue per second', (s) => s.addRate);
queueGauge('temporal_task_queue_dispatch_rate', 'Tasks handed to workers per second', (s) => s.dispatchRate);
queueGauge('temporal_task_queue_pollers', 'Workers polling a task queue (seen recently)', (s) => s.pollers);

/**
 * Exports `queues`' backlog on this process's /metrics (docs/operations.md "Scaling signals"): the
 * API for every queue it starts work on, a worker for its pools'. Read at scrape, at most every
 * STATS_MAX_AGE_MS; a scrape while Temporal is away has no queue series.
 */
export function exportQueueMetrics(
  client: Client,
  namespace: string,
  queues: readonly ExportedQueue[],
): void {
  source = { client, namespace };
  for (const queue of queues) exported.set(queue.taskQueue, queue);
  cached = undefined;
}

/** This process's workers, whose slots are exported. */
const workers = new Map<Worker, string>();

const SLOT_KINDS = [
  ['workflow', 'workflowTaskSlotSupplier', (w: Worker) => w.getStatus().numInFlightWorkflowActivations],
  ['activity', 'activityTaskSlotSupplier', (w: Worker) => w.getStatus().numInFlightNonLocalActivities],
  [
    'local_activity',
    'localActivityTaskSlotSupplier',
    (w: Worker) => w.getStatus().numInFlightLocalActivities,
  ],
] as const;

function slotGauge(
  name: string,
  help: string,
  value: (w: Worker, kind: (typeof SLOT_KINDS)[number]) => number,
) {
  return new Gauge({
    name,
    help,
    labelNames: ['pool', 'slot_type'] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const [worker, pool] of workers)
        for (const kind of SLOT_KINDS) this.set({ pool, slot_type: kind[0] }, value(worker, kind));
    },
  });
}

slotGauge(
  'temporal_worker_slots_used',
  'Task slots in use on this process’s workers, by pool and slot type',
  (w, k) => k[2](w),
);
slotGauge(
  'temporal_worker_slots_max',
  'Task slots this process’s workers have, by pool and slot type',
  (w, k) => {
    const supplier = w.options.tuner[k[1]];
    return supplier.type === 'fixed-size' ? supplier.numSlots : Number.NaN;
  },
);

/** Exports `worker`'s slot usage under `pool` until it stops. */
export function exportWorkerSlots(worker: Worker, pool: string): void {
  workers.set(worker, pool);
}

/** Stops exporting `worker`'s slots. */
export function forgetWorkerSlots(worker: Worker): void {
  workers.delete(worker);
}

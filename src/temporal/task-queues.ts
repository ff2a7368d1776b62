import { z } from 'zod';

/**
 * The platform's workloads, each on a task queue of its own (docs/operations.md "Worker pools"), so
 * that each pool of workers scales on its own and a flood of one never slows another:
 * - `conversations`: live voice sessions and phone calls (a caller is waiting on every task);
 * - `deliveries`: webhook deliveries (they pile up when a receiver is down);
 * - `executions`: voice-workflow executions (graphs started by a voice command or the API);
 * - `background`: reviews, agent tests, call analysis, marketplace removals, housekeeping and the
 *   health ping.
 */
export const WORKLOADS = ['conversations', 'deliveries', 'executions', 'background'] as const;
export type Workload = (typeof WORKLOADS)[number];

/** Each workload's task queue. */
export type TaskQueues = Readonly<Record<Workload, string>>;

/**
 * How work is laid out on task queues (`TEMPORAL_QUEUE_LAYOUT`): a queue per pool (the default), or
 * every workload on one shared queue, `<prefix>` itself (the layout before pools; a small
 * deployment's, and the contrast `bench:cluster` measures the pools against).
 */
export const QUEUE_LAYOUTS = ['pools', 'shared'] as const;
export type QueueLayout = (typeof QUEUE_LAYOUTS)[number];

/** The pool a worker serves: one of the workloads, or `shared`, every workload on the one queue. */
export type WorkerPool = Workload | 'shared';

/** The task queues under `prefix` (`TEMPORAL_TASK_QUEUE`): `<prefix>-conversations` and so on, or all `<prefix>`. */
export function taskQueuesFor(prefix: string, layout: QueueLayout = 'pools'): TaskQueues {
  const queue = (w: Workload) => (layout === 'shared' ? prefix : `${prefix}-${w}`);
  return Object.fromEntries(WORKLOADS.map((w) => [w, queue(w)])) as Record<Workload, string>;
}

/**
 * The queues a worker serving `workloads` polls, each with its pool: one per workload, or, with the
 * shared layout, the one queue for every workload (`WORKER_TASK_QUEUES` then has nothing to split).
 */
export function queuesToServe(opts: {
  layout: QueueLayout;
  taskQueues: TaskQueues;
  workloads: readonly Workload[];
}): { pool: WorkerPool; taskQueue: string }[] {
  if (opts.layout === 'shared') return [{ pool: 'shared', taskQueue: opts.taskQueues.background }];
  return opts.workloads.map((pool) => ({ pool, taskQueue: opts.taskQueues[pool] }));
}

const WorkloadNames = z
  .array(z.enum(WORKLOADS, { message: `each must be one of ${WORKLOADS.join(', ')}` }))
  .min(1, `name at least one of ${WORKLOADS.join(', ')}`);

/**
 * The workloads a worker process serves, from `WORKER_TASK_QUEUES` (`conversations,deliveries`):
 * every one of them when unset or `all`, each at most once, in the platform's order. A name that is
 * no workload is an error that names it.
 */
export function parseWorkerWorkloads(raw: string | undefined): Workload[] {
  if (raw === undefined || raw.trim() === 'all') return [...WORKLOADS];
  const names = raw
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  const parsed = WorkloadNames.safeParse(names);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const name = typeof issue.path[0] === 'number' ? ` (got ${JSON.stringify(names[issue.path[0]])})` : '';
    throw new Error(`WORKER_TASK_QUEUES: ${issue.message}${name}`);
  }
  return WORKLOADS.filter((w) => parsed.data.includes(w));
}

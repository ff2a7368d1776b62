import { startWorker } from '../src/app/runtime';
import { TEST_ADMIN_TOKEN, TEST_ENV } from './support/env';
import { startTestApp, type TestApp } from './support/test-app';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The value of `metric{labels…}` in a scrape, or undefined when the series is absent. */
function sample(scraped: string, metric: string, labels: Record<string, string>): number | undefined {
  const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  for (const line of scraped.split('\n')) {
    if (!line.startsWith(`${metric}{`)) continue;
    const [series, value] = [line.slice(0, line.lastIndexOf(' ')), line.slice(line.lastIndexOf(' ') + 1)];
    if (wanted.every((w) => series.includes(w))) return Number(value);
  }
  return undefined;
}

/**
 * The signals to scale on (docs/operations.md "Scaling signals"): each pool's queue backlog from
 * Temporal's DescribeTaskQueue, and each worker's slots, on /metrics.
 */
describe('scaling signals on /metrics', () => {
  let app: TestApp;
  const prefix = `vp-queue-metrics-${process.pid}`;
  const scrape = async () =>
    (
      await fetch(`${app.baseUrl}/metrics`, { headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` } })
    ).text();
  const backgroundQueue = { pool: 'background', task_queue: `${prefix}-background`, task_type: 'workflow' };

  beforeAll(async () => {
    app = await startTestApp({ TEMPORAL_TASK_QUEUE: prefix });
  });
  afterAll(async () => {
    await app?.close();
  });

  it('exports a queue’s backlog and its age while no worker polls it, then its drain and the worker’s slots', async () => {
    // five health pings on the background queue, which no worker polls yet
    const runs = await Promise.all(
      Array.from({ length: 5 }, (_, i) =>
        app.ctx.temporal.workflow.start('systemPingWorkflow', {
          taskQueue: app.ctx.config.temporal.taskQueues.background,
          workflowId: `${prefix}-ping-${i}-${Date.now()}`,
          args: [{ requestedAt: new Date().toISOString() }],
        }),
      ),
    );
    let scraped = await scrape();
    for (
      let i = 0;
      i < 50 && (sample(scraped, 'temporal_task_queue_backlog', backgroundQueue) ?? 0) < 5;
      i++
    ) {
      await sleep(200);
      scraped = await scrape();
    }
    expect(sample(scraped, 'temporal_task_queue_backlog', backgroundQueue)).toBe(5);
    expect(sample(scraped, 'temporal_task_queue_backlog_age_seconds', backgroundQueue)).toBeGreaterThan(0);
    expect(sample(scraped, 'temporal_task_queue_pollers', backgroundQueue)).toBe(0);
    // every pool's queue is there, each with its task types
    for (const pool of ['conversations', 'deliveries', 'executions', 'background'])
      for (const task_type of ['workflow', 'activity'])
        expect(sample(scraped, 'temporal_task_queue_backlog', { pool, task_type })).toBeDefined();

    const worker = await startWorker(app.ctx, TEST_ENV.temporalAddress(), { dispatch: false });
    try {
      await Promise.all(runs.map((run) => run.result()));
      await sleep(2100); // past the stats' cache
      scraped = await scrape();
      for (let i = 0; i < 50 && sample(scraped, 'temporal_task_queue_backlog', backgroundQueue) !== 0; i++) {
        await sleep(200);
        scraped = await scrape();
      }
      expect(sample(scraped, 'temporal_task_queue_backlog', backgroundQueue)).toBe(0);
      expect(sample(scraped, 'temporal_task_queue_pollers', backgroundQueue)).toBeGreaterThan(0);
      for (const pool of ['conversations', 'deliveries', 'executions', 'background']) {
        expect(sample(scraped, 'temporal_worker_slots_max', { pool, slot_type: 'activity' })).toBeGreaterThan(
          0,
        );
        expect(
          sample(scraped, 'temporal_worker_slots_used', { pool, slot_type: 'workflow' }),
        ).toBeGreaterThanOrEqual(0);
      }
    } finally {
      await worker.stop();
    }
  }, 60_000);
});

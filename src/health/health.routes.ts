import type { Express } from 'express';
import type { AppContext } from '../common/context';
import { runSystemPingWorkflow } from './system-ping-workflows';

const CHECK_TIMEOUT_MS = 3000;

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what} did not answer within ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

/**
 * `/healthz`: the process is up. `/readyz`: the database and Temporal answer; with `?deep=true` a
 * system workflow also makes a round trip through a worker, proving workers are polling the task queue.
 */
export function mountHealth(app: Express, ctx: AppContext): void {
  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok', uptimeSeconds: Math.round(process.uptime()) });
  });

  app.get('/readyz', async (req, res) => {
    const checks: Record<string, string> = {};
    const run = async (name: string, check: () => Promise<unknown>) => {
      try {
        await withTimeout(check(), CHECK_TIMEOUT_MS, name);
        checks[name] = 'ok';
      } catch (error) {
        checks[name] = `error: ${(error as Error).message}`;
      }
    };
    await Promise.all([
      run('database', () => ctx.orm.em.getConnection().execute('select 1')),
      run('temporal', () => ctx.temporal.connection.workflowService.getSystemInfo({})),
    ]);
    if (req.query.deep === 'true') {
      await run('worker', () => runSystemPingWorkflow(ctx.temporal, ctx.config.temporal.taskQueue));
    }
    const ready = Object.values(checks).every((v) => v === 'ok');
    res.status(ready ? 200 : 503).json({ status: ready ? 'ready' : 'unavailable', checks });
  });
}

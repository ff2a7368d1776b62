import type { Express, Request, Response } from 'express';
import { adminAuthenticator } from '../auth/admin-auth';
import type { AppContext } from '../common/context';
import { scrape } from '../telemetry/metrics';
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

/** A deep check's answer is shared for this long: callers in flight and just after get the same one. */
const DEEP_CHECK_CACHE_MS = 5000;

/**
 * `/healthz`: the process is up. `/readyz`: the database and Temporal answer (public and cheap);
 * with `?deep=true` and the ADMIN_TOKEN, a system workflow also makes a round trip through a worker,
 * proving workers are polling the task queue. That round trip runs once at a time and its answer is
 * kept DEEP_CHECK_CACHE_MS, so callers cannot start a workflow each.
 */
export function mountHealth(app: Express, ctx: AppContext): void {
  const adminToken = adminAuthenticator(ctx.config.adminToken);
  // a refused admin token spends its address's budget, as on the API roots: past it, a 429
  const admin = async (req: Request, res: Response): Promise<void> => {
    try {
      adminToken(req);
    } catch (error) {
      await ctx.rateLimits.consumeAnonymous(res, req.ip ?? 'unknown');
      throw error;
    }
  };
  let deep: { at: number; answer: Promise<string> } | undefined;
  const workerCheck = (): Promise<string> => {
    if (!deep || Date.now() - deep.at >= DEEP_CHECK_CACHE_MS) {
      const answer = withTimeout(
        runSystemPingWorkflow(ctx.temporal, ctx.config.temporal.taskQueues.background),
        CHECK_TIMEOUT_MS,
        'worker',
      ).then(
        () => 'ok',
        (error: Error) => `error: ${error.message}`,
      );
      deep = { at: Date.now(), answer };
    }
    return deep.answer;
  };
  // Prometheus metrics on the API's own port, for operators (METRICS_PORT serves them without a token)
  app.get('/metrics', async (req, res, next) => {
    try {
      await admin(req, res);
      const { contentType, body } = await scrape();
      res.type(contentType).send(body);
    } catch (error) {
      next(error);
    }
  });
  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok', uptimeSeconds: Math.round(process.uptime()) });
  });

  app.get('/readyz', async (req, res, next) => {
    const wantsDeep = req.query.deep === 'true';
    if (wantsDeep) {
      try {
        await admin(req, res);
      } catch (error) {
        return next(error);
      }
    }
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
    if (wantsDeep) checks.worker = await workerCheck();
    const ready = Object.values(checks).every((v) => v === 'ok');
    res.status(ready ? 200 : 503).json({ status: ready ? 'ready' : 'unavailable', checks });
  });
}

import type { Response } from 'express';
import type { ConsoleAuth } from '../accounts';
import type { PlatformAuth } from '../auth/platform-auth';
import type { AppContext } from '../common/context';
import type { ApiRoot } from '../http/api-router';
import { envelopeOf, ok } from '../http/envelope';
import {
  ListRunsQuery,
  RunEnvelope,
  RunList,
  RunParams,
  StartRunBody,
  type StartRunInput,
  StartRunQuery,
} from './run.schemas';
import { awaitRun, cancelRun, findRun, listRuns, runView, startTestRun } from './runs.service';
import { PersonaTestParams } from './scenario.schemas';

const START_DESCRIPTION =
  "Runs the persona's scenarios (all, or those named in `scenarios`) against its current draft, each as a child workflow driving a real session in the `test` environment (4 at a time). `version` runs a frozen persona version (400 if the persona has no such version) instead of the working draft. The run (`testrun_…`) is a Temporal workflow of that id. With `?wait=true` the answer comes when the run has ended (200; 202 if still running after 10 minutes): a CI job reads `status`. Emits `test_run.completed` when it ends.";

/** Starts a run and, with `wait`, answers once it has ended (202 while it is still running). */
function runStarter<A>(ctx: AppContext, accountOf: (auth: A) => string) {
  return async (auth: A, personaId: string, body: StartRunInput, wait: boolean, res: Response) => {
    const run = await startTestRun(ctx, ctx.orm.em, accountOf(auth), personaId, body);
    const current = wait ? await awaitRun(ctx.orm.em, run) : run;
    if (!wait || current.status === 'running') res.status(202);
    return runView(ctx.orm.em, current);
  };
}

export function mountConsoleRunRoutes(console: ApiRoot<ConsoleAuth>, ctx: AppContext): void {
  const em = () => ctx.orm.em;
  const start = runStarter<ConsoleAuth>(ctx, (a) => a.account.id);
  console
    .route({
      method: 'post',
      path: '/personas/:id/test-runs',
      summary: "Run a persona's test scenarios",
      description: START_DESCRIPTION,
      rateClass: 'expensive',
      params: PersonaTestParams,
      query: StartRunQuery,
      body: StartRunBody,
      success: {
        status: 200,
        description: 'The run, ended',
        schema: RunEnvelope,
        also: { 202: 'The run, still running' },
      },
      handler: async ({ auth, params, query, body, res }) => ({
        run: await start(auth, params.id, body, query.wait === 'true', res),
      }),
    })
    .route({
      method: 'get',
      path: '/personas/:id/test-runs',
      summary: "A persona's test runs, newest first",
      params: PersonaTestParams,
      query: ListRunsQuery,
      success: { description: 'Runs without their results', schema: RunList },
      handler: async ({ auth, params, query }) => ({
        runs: await listRuns(em(), auth.account.id, params.id, query.limit),
      }),
    })
    .route({
      method: 'get',
      path: '/test-runs/:id',
      summary: "A test run with every scenario's verdicts, transcript and latencies",
      params: RunParams,
      success: { description: 'The run', schema: RunEnvelope },
      handler: async ({ auth, params }) => ({
        run: await runView(em(), await findRun(em(), auth.account.id, params.id)),
      }),
    })
    .route({
      method: 'post',
      path: '/test-runs/:id/cancel',
      summary: 'Cancel a test run',
      description:
        'Cancels its workflow (running sessions end) and records `cancelled`; a run that has ended is answered as it is.',
      params: RunParams,
      success: { description: 'The run', schema: RunEnvelope },
      handler: async ({ auth, params }) => ({ run: await cancelRun(ctx, em(), auth.account.id, params.id) }),
    });
}

const RunData = envelopeOf(RunEnvelope.shape.run);
const RunListData = envelopeOf(RunList.shape.runs);

/** The same runs on the platform API, for a CI job holding an API key (scopes tests:run / tests:read). */
export function mountPlatformRunRoutes(platform: ApiRoot<PlatformAuth>, ctx: AppContext): void {
  const em = () => ctx.orm.em;
  const start = runStarter<PlatformAuth>(ctx, (a) => a.accountId);
  platform
    .route({
      method: 'post',
      path: '/personas/:id/test-runs',
      summary: "Run a persona's test scenarios",
      description: START_DESCRIPTION,
      scope: 'tests:run',
      rateClass: 'expensive',
      params: PersonaTestParams,
      query: StartRunQuery,
      body: StartRunBody,
      success: {
        status: 200,
        description: 'The run, ended',
        schema: RunData,
        also: { 202: 'The run, still running' },
      },
      handler: async ({ auth, params, query, body, res }) =>
        ok(await start(auth, params.id, body, query.wait === 'true', res)),
    })
    .route({
      method: 'get',
      path: '/personas/:id/test-runs',
      summary: "A persona's test runs, newest first",
      scope: 'tests:read',
      params: PersonaTestParams,
      query: ListRunsQuery,
      success: { description: 'Runs without their results', schema: RunListData },
      handler: async ({ auth, params, query }) =>
        ok(await listRuns(em(), auth.accountId, params.id, query.limit)),
    })
    .route({
      method: 'get',
      path: '/test-runs/:id',
      summary: "A test run with every scenario's verdicts, transcript and latencies",
      scope: 'tests:read',
      params: RunParams,
      success: { description: 'The run', schema: RunData },
      handler: async ({ auth, params }) =>
        ok(await runView(em(), await findRun(em(), auth.accountId, params.id))),
    })
    .route({
      method: 'post',
      path: '/test-runs/:id/cancel',
      summary: 'Cancel a test run',
      scope: 'tests:run',
      params: RunParams,
      success: { description: 'The run', schema: RunData },
      handler: async ({ auth, params }) => ok(await cancelRun(ctx, em(), auth.accountId, params.id)),
    });
}

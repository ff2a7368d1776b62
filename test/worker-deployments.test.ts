import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { startWorker } from '../src/app/runtime';
import { TEST_ENV } from './support/env';
import { startLlmDouble } from './support/llm-double';
import { completeManifest } from './support/personas';
import { eventually } from './support/receiver';
import { call, type Developer, newDeveloper, startTestApp, type TestApp } from './support/test-app';

const ROOT = path.resolve(__dirname, '..');
const TSX = path.join(ROOT, 'node_modules/tsx/dist/cli.mjs');

/**
 * A rolling deploy with Worker Deployments (docs/operations.md "Deploys"): v1 runs; v2 starts beside
 * it and is promoted with `npm run deploy:promote`; a conversation started on v1 goes on answering on
 * v1 (pinned) while new conversations and background work start on v2.
 */
describe('a rolling deploy never changes a live conversation’s code', () => {
  const prefix = `vp-deploy-${process.pid}`;
  const deploymentName = `voice-platform-test-${process.pid}`;
  const envOf = (buildId: string) => ({
    TEMPORAL_TASK_QUEUE: prefix,
    WORKER_DEPLOYMENT_NAME: deploymentName,
    WORKER_BUILD_ID: buildId,
    RATE_LIMITS: 'off',
  });
  let llm: Awaited<ReturnType<typeof startLlmDouble>>;
  let v1: TestApp;
  let v2: TestApp;
  const stops: (() => Promise<void>)[] = [];
  let dev: Developer;
  let personaId: string;

  /** `npm run deploy:…` as an operator runs it (its own process, off this one's event loop). */
  const deploy = async (...args: string[]) => {
    const run = await promisify(execFile)(process.execPath, [TSX, 'src/bin/deploy.ts', ...args], {
      cwd: ROOT,
      encoding: 'utf8',
      env: {
        ...process.env,
        NODE_ENV: 'test',
        TEMPORAL_ADDRESS: TEST_ENV.temporalAddress(),
        TEMPORAL_TASK_QUEUE: prefix,
        WORKER_DEPLOYMENT_NAME: deploymentName,
      },
    });
    expect(run.stderr).toBe('');
    return run.stdout;
  };
  const versionOf = async (app: TestApp, workflowId: string) => {
    const { raw } = await app.ctx.temporal.workflow.getHandle(workflowId).describe();
    const info = raw.workflowExecutionInfo?.versioningInfo;
    return { buildId: info?.deploymentVersion?.buildId, behavior: info?.behavior };
  };
  const say = async (app: TestApp, sessionId: string, text: string) => {
    const res = await call(app.baseUrl, 'POST', `/api/v2/developers/sessions/${sessionId}/turns`, {
      token: dev.testKey,
      body: { text },
    });
    expect([text, res.status]).toEqual([text, 200]);
  };
  const startSession = async (app: TestApp) => {
    const res = await call(app.baseUrl, 'POST', '/api/v2/developers/sessions', {
      token: dev.testKey,
      body: { personaId, userId: 'caller' },
    });
    expect(res.status).toBe(201);
    return res.body.data.id as string;
  };

  beforeAll(async () => {
    llm = await startLlmDouble();
    v1 = await startTestApp({ ...envOf('1.0.0-v1'), LLM_BASE_URL: llm.baseUrl });
    v2 = await startTestApp({ ...envOf('1.0.1-v2'), LLM_BASE_URL: llm.baseUrl });
    dev = await newDeveloper(v1, 'deploys');
    const created = await call(v1.baseUrl, 'POST', '/api/v1/developers/personas', {
      token: dev.token,
      body: { manifest: completeManifest('deploy-agent') },
    });
    personaId = created.body.persona.id;
  });
  afterAll(async () => {
    for (const stop of stops.reverse()) await stop();
    await v2?.close();
    await v1?.close();
    await llm?.close();
  });

  it('pins a conversation to v1 through the promotion of v2; new work starts on v2', async () => {
    const first = await startWorker(v1.ctx, TEST_ENV.temporalAddress(), { dispatch: false });
    stops.push(first.stop);
    // a new deployment's first version becomes current by itself
    await eventually(async () => (await deploy('status')).includes('current: 1.0.0-v1'), 30_000);
    const onV1 = await startSession(v1);
    await say(v1, onV1, 'Hello from before the deploy');
    expect(await versionOf(v1, onV1)).toEqual({ buildId: '1.0.0-v1', behavior: 1 }); // PINNED

    const second = await startWorker(v2.ctx, TEST_ENV.temporalAddress(), { dispatch: false });
    stops.push(second.stop);
    await eventually(async () => (await deploy('status')).includes('version 1.0.1-v2'), 30_000);
    expect(await deploy('status')).toContain('current: 1.0.0-v1'); // a later version waits to be promoted
    expect(await deploy('promote', '1.0.1-v2', '--ramp', '25')).toContain('25%');
    expect(await deploy('promote', '1.0.1-v2')).toContain('1.0.1-v2 is the current version');

    // the v1 conversation goes on, on v1; a new one starts on v2
    await say(v2, onV1, 'Still there after the deploy?');
    expect(await versionOf(v1, onV1)).toEqual({ buildId: '1.0.0-v1', behavior: 1 });
    const onV2 = await startSession(v2);
    await say(v2, onV2, 'Hello after the deploy');
    expect(await versionOf(v2, onV2)).toEqual({ buildId: '1.0.1-v2', behavior: 1 });
    // background work upgrades: a health ping now runs on v2
    const ping = await v2.ctx.temporal.workflow.start('systemPingWorkflow', {
      taskQueue: v2.ctx.config.temporal.taskQueues.background,
      workflowId: `${prefix}-ping-${Date.now()}`,
      args: [{ requestedAt: new Date().toISOString() }],
    });
    await ping.result();
    expect(await versionOf(v2, ping.workflowId)).toEqual({ buildId: '1.0.1-v2', behavior: 2 }); // AUTO_UPGRADE
    expect(await deploy('status')).toMatch(/version 1\.0\.0-v1: draining/);
  }, 120_000);
});

import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Client, Connection } from '@temporalio/client';
import { Client as PgClient } from 'pg';
import { type PlatformProcesses, startPlatformProcesses } from '../../src/app/cluster-processes';
import { signDevToken } from '../../src/auth/dev-idp';
import { createLogger } from '../../src/logging/logger';
import {
  dropTemporalDatabases,
  freshTemporalDatabases,
  LOCAL_POSTGRES,
} from '../../src/temporal/cluster/schema';
import { startTemporalCluster, type TemporalCluster } from '../../src/temporal/cluster/temporal-cluster';
import { probeEventTimeline } from '../support/cluster-chaos/probe-timeline';
import { runClusterChaos } from '../support/cluster-chaos/run';
import { type DatabaseProxy, startDatabaseProxy } from '../support/db-proxy';
import { startLlmDouble } from '../support/llm-double';
import { completeManifest } from '../support/personas';
import { eventually, type Receiver, startReceiver } from '../support/receiver';
import { speakWorkflow } from '../support/speak-workflow';
import { call } from '../support/test-app';

const ROOT = path.resolve(__dirname, '../..');

/**
 * The cluster tier (`npm run test:cluster`, docs/cluster.md): the production topology started from
 * nothing on fresh databases (a Temporal cluster of four services on PostgreSQL, two API processes,
 * a worker process per pool), and the platform's kinds of work run on it through both APIs.
 */
describe('the production topology, from nothing', () => {
  const logger = createLogger(process.env.TEST_LOG_LEVEL ?? 'warn', 'cluster-test');
  const runDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vp-cluster-'));
  const databases = freshTemporalDatabases('temporal_ci');
  const platformDb = `voice_platform_ci_${Date.now().toString(36)}`;
  let temporal: TemporalCluster;
  let platform: PlatformProcesses;
  let llm: Awaited<ReturnType<typeof startLlmDouble>>;
  let receiver: Receiver;
  /** Every connection to PostgreSQL, Temporal's and the platform's, goes through it (the chaos run cuts it). */
  let database: DatabaseProxy;
  let token: string;
  let key: string;
  let personaId: string;
  let temporalClient: Client;
  let v2Workers: PlatformProcesses['workers'] | undefined;
  const [apiOne, apiTwo] = [() => platform.apis[0]!.url, () => platform.apis[1]!.url];
  const v2 = (base: string, method: string, route: string, body?: unknown) =>
    call(base, method, `/api/v2/developers${route}`, { token: key, body });

  beforeAll(async () => {
    llm = await startLlmDouble();
    receiver = await startReceiver();
    Object.assign(process.env, {
      LLM_BASE_URL: llm.baseUrl,
      LLM_MODEL: 'test-model',
      WEBHOOK_RETRY_DELAYS: '0,1,1',
      RATE_LIMITS: 'off', // the chaos run's load comes from one key, faster than a plan's limits
    });
    database = await startDatabaseProxy('postgres://postgres@127.0.0.1:5432/postgres');
    const postgres = { ...LOCAL_POSTGRES, port: Number(new URL(database.url).port) };
    temporal = await startTemporalCluster({
      logger,
      runDir,
      databases,
      postgres,
      portBase: 17233,
      uiPort: 18080,
    });
    platform = await startPlatformProcesses({
      logger,
      repoRoot: ROOT,
      runDir,
      temporal: { address: temporal.address, namespace: temporal.namespace, uiUrl: temporal.uiUrl },
      databaseUrl: new URL(`/${platformDb}`, database.url).toString(),
      apiPorts: [13000, 13001],
    });
    token = await signDevToken(platform.dataDir, `cluster-${Date.now()}@example.com`);
    expect((await call(apiOne(), 'GET', '/api/v1/developers/me', { token })).status).toBe(200);
    const created = await call(apiTwo(), 'POST', '/api/v1/developers/keys', {
      token,
      body: { name: 'cluster', environment: 'test' },
    });
    key = created.body.key.fullKey;
    temporalClient = new Client({ connection: await Connection.connect({ address: temporal.address }) });
  }, 600_000);

  afterAll(async () => {
    await temporalClient?.connection.close();
    await platform?.stop();
    await temporal?.stop();
    await Promise.all([llm?.close(), receiver?.close(), database?.close()]);
    await dropTemporalDatabases({ postgres: LOCAL_POSTGRES, databases }).catch(() => undefined);
    const admin = new PgClient({ connectionString: 'postgres://postgres@127.0.0.1:5432/postgres' });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS "${platformDb}" WITH (FORCE)`).catch(() => undefined);
    await admin.end();
    fs.rmSync(runDir, { recursive: true, force: true });
  }, 120_000);

  it('is ready through both APIs: the database, Temporal and a worker', async () => {
    for (const base of [apiOne(), apiTwo()]) {
      const ready = await call(base, 'GET', '/readyz?deep=true', { token: platform.adminToken });
      expect(ready.body).toEqual({
        status: 'ready',
        checks: { database: 'ok', temporal: 'ok', worker: 'ok' },
      });
    }
  });

  it('runs a persona review, a session, a webhook delivery and a voice-workflow execution across both APIs', async () => {
    // a webhook for the session's events, made on API 1
    const hook = await v2(apiOne(), 'POST', '/webhooks', {
      name: 'cluster',
      url: receiver.url,
      events: ['session.started'],
    });
    expect(hook.status).toBe(201);
    // a persona submitted on API 2, reviewed by the operator on API 1 (the background pool)
    const persona = await call(apiTwo(), 'POST', '/api/v1/developers/personas', {
      token,
      body: { manifest: completeManifest('cluster-agent') },
    });
    personaId = persona.body.persona.id as string;
    expect(
      (await call(apiTwo(), 'POST', `/api/v1/developers/personas/${personaId}/submit`, { token })).status,
    ).toBe(200);
    const decided = await eventually(async () => {
      const r = await call(apiOne(), 'POST', `/api/admin/personas/${personaId}/review`, {
        token: platform.adminToken,
        body: { decision: 'approve' },
      });
      return r.status === 200 && r.body;
    }, 60_000);
    expect(decided.persona.status).toBe('published');
    // a session started on API 1, its turn taken on API 2 (the conversations pool)
    const session = await v2(apiOne(), 'POST', '/sessions', { personaId, userId: 'caller' });
    expect(session.status).toBe(201);
    const turn = await v2(apiTwo(), 'POST', `/sessions/${session.body.data.id}/turns`, {
      text: 'Hello cluster',
    });
    expect(turn.status).toBe(200);
    expect(turn.body.data.reply.text).toContain('Hello cluster');
    // its session.started event delivered, signed (the deliveries pool)
    const [delivered] = await receiver.waitFor(1, 60_000);
    expect(JSON.parse(delivered!.rawBody)).toMatchObject({ type: 'session.started' });
    expect(delivered!.headers['webhook-signature']).toMatch(/^v1,/);
    // a voice workflow executed on API 2 and read on API 1 (the executions pool)
    const wf = await v2(apiTwo(), 'POST', '/workflows', speakWorkflow('cluster', 'Done on the cluster'));
    expect(wf.status).toBe(201);
    const run = await v2(apiTwo(), 'POST', `/workflows/${wf.body.data.id}/execute`, {});
    const done = await eventually(async () => {
      const r = await v2(apiOne(), 'GET', `/workflows/${wf.body.data.id}/executions/${run.body.data.id}`);
      return r.body.data?.status === 'completed' && r.body.data;
    }, 60_000);
    expect(done.output.speech).toEqual(['Done on the cluster']);
  }, 300_000);

  /** `npm run deploy:…` as an operator runs it, against the cluster. */
  const deploy = async (...args: string[]) => {
    const tsx = path.join(ROOT, 'node_modules/tsx/dist/cli.mjs');
    const run = await promisify(execFile)(process.execPath, [tsx, 'src/bin/deploy.ts', ...args], {
      cwd: ROOT,
      env: {
        ...process.env,
        TEMPORAL_ADDRESS: temporal.address,
        WORKER_DEPLOYMENT_NAME: platform.deploymentName ?? 'voice-platform',
      },
    });
    return run.stdout;
  };
  const versionOf = async (workflowId: string) => {
    const { raw } = await temporalClient.workflow.getHandle(workflowId).describe();
    const info = raw.workflowExecutionInfo?.versioningInfo;
    return { buildId: info?.deploymentVersion?.buildId, behavior: info?.behavior };
  };
  const talk = async (base: string, sessionId: string, text: string) => {
    const turn = await v2(base, 'POST', `/sessions/${sessionId}/turns`, { text });
    expect([text, turn.status]).toEqual([text, 200]);
    return turn.body.data;
  };
  const startSession = async (base: string) => {
    const session = await v2(base, 'POST', '/sessions', { personaId, userId: 'caller' });
    expect(session.status).toBe(201);
    return session.body.data.id as string;
  };

  it('deploys v2 beside v1: the conversation started on v1 answers on v1, new ones start on v2', async () => {
    const onV1 = await startSession(apiOne());
    await talk(apiTwo(), onV1, 'Before the deploy');
    expect(await versionOf(onV1)).toEqual({ buildId: platform.buildId, behavior: 1 }); // PINNED
    v2Workers = await platform.startWorkerVersion('ci-v2');
    expect(await deploy('status')).toContain(`current: ${platform.buildId}`);
    expect(await deploy('promote', 'ci-v2')).toContain('ci-v2 is the current version');
    await talk(apiOne(), onV1, 'During the deploy');
    expect(await versionOf(onV1)).toEqual({ buildId: platform.buildId, behavior: 1 });
    const onV2 = await startSession(apiTwo());
    await talk(apiOne(), onV2, 'After the deploy');
    expect(await versionOf(onV2)).toEqual({ buildId: 'ci-v2', behavior: 1 });
    expect(await deploy('status')).toMatch(new RegExp(`version ${platform.buildId}: draining`));
  }, 300_000);

  it('loses and repeats nothing when a worker is killed mid-turn and the history service restarts mid-fan-out', async () => {
    // a conversation worker of every version SIGKILLed while a turn is under way, then restarted
    const sessionId = await startSession(apiOne());
    const conversationWorkers = [...platform.workers.conversations, ...(v2Workers?.conversations ?? [])];
    const turn = v2(apiTwo(), 'POST', `/sessions/${sessionId}/turns`, { text: 'Through a killed worker' });
    for (const worker of conversationWorkers) worker.kill('SIGKILL');
    await Promise.all(conversationWorkers.map((worker) => worker.restart()));
    expect((await turn).status).toBe(200);
    await talk(apiOne(), sessionId, 'And after it');
    const record = await v2(apiOne(), 'GET', `/sessions/${sessionId}`);
    const texts = (record.body.data.transcript as { text: string }[]).map((t) => t.text);
    expect(texts).toEqual(['Through a killed worker', 'And after it']); // each once
    // twenty events fanned out to the webhook while the history service restarts
    const before = receiver.requests.length;
    const answers: { status: number; retryAfter: string | null }[] = [];
    const triggers = Array.from({ length: 20 }, async (_, i) => {
      if (i === 10) await temporal.services.history.restart();
      const res = await fetch(`${apiOne()}/api/v2/developers/events/trigger`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ type: 'session.started' }),
      });
      answers.push({ status: res.status, retryAfter: res.headers.get('retry-after') });
    });
    await Promise.all(triggers);
    for (const a of answers)
      if (a.status >= 500) expect(a).toEqual({ status: 503, retryAfter: expect.any(String) });
    const accepted = answers.filter((a) => a.status < 300).length;
    await receiver.waitFor(before + accepted, 120_000);
    const ids = receiver.requests.slice(before).map((r) => JSON.parse(r.rawBody).id as string);
    expect(new Set(ids).size).toBe(accepted); // every accepted event delivered, under one id each
  }, 300_000);

  it('completes every acknowledged request exactly once while each kind of process dies and the database is cut, under load', async () => {
    const timeline = () =>
      probeEventTimeline(`postgres://postgres@127.0.0.1:5432/${platformDb}`).then(
        console.log,
        () => undefined,
      );
    const chaos = runClusterChaos({
      apis: [apiOne(), apiTwo()],
      token,
      key,
      targets: {
        apis: platform.apis,
        workers: v2Workers ?? platform.workers, // the current version's
        history: temporal.services.history,
        database,
        adminToken: platform.adminToken,
      },
      llm,
      load: { sessions: 2, thinkMs: 300, eventsPerSecond: 3, executionsPerSecond: 1 },
      settleSeconds: 3,
      outageSeconds: 4,
      drainSeconds: 180,
    });
    const { recoveries, tally } = await chaos.catch(async (error) => {
      await timeline();
      throw error;
    });
    if (recoveries.some((r) => r.parts.event > 30)) await timeline();
    // seconds until each part of the probe succeeded again after each fault: what a slow recovery was
    console.log(
      recoveries
        .map(
          (r) =>
            `${r.fault}: ${Object.entries(r.parts)
              .map(([p, s]) => `${p} ${s.toFixed(1)} s`)
              .join(', ')}`,
        )
        .join('\n'),
    );
    expect(recoveries.map((r) => r.fault)).toEqual([
      'a conversations pool worker SIGKILLed',
      'a deliveries pool worker SIGKILLed',
      'an executions pool worker SIGKILLed',
      'a background pool worker SIGKILLed',
      'api-1 SIGKILLed',
      'the history service SIGKILLed',
      'PostgreSQL cut for 4 s',
    ]);
    expect(tally.violations).toEqual([]);
    expect(tally.turnsAcknowledged).toBeGreaterThan(0);
    expect(tally.eventsAcknowledged).toBeGreaterThan(0);
    expect(tally.executionsAcknowledged).toBeGreaterThan(0);
  }, 900_000);
});

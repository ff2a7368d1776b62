import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { POOL_ACTIVITIES } from '../activities';
import { loadConfig } from '../src/config/env';
import { temporalConfig, temporalEnv } from '../src/config/temporal';
import { defaultBuildId } from '../src/temporal/deployment';
import {
  parseWorkerWorkloads,
  queuesToServe,
  taskQueuesFor,
  WORKLOADS,
  type Workload,
} from '../src/temporal/task-queues';
import * as allWorkflows from '../workflows';

/** Anything, any depth: the activity factories bind to their dependencies without using them. */
const anything: any = new Proxy(() => anything, { get: () => anything, apply: () => anything });
const activitiesOf = (w: Workload) => Object.keys(POOL_ACTIVITIES[w](anything));
const workflowsOf = (w: Workload) =>
  Object.entries(require(`../workflows/pools/${w}`) as Record<string, unknown>)
    .filter(([, value]) => typeof value === 'function')
    .map(([name]) => name);

const WORKFLOWS_DIR = path.resolve(__dirname, '../workflows');

/** The source of a pool's workflows: its module's files and what they import (not only as types) from workflows/. */
function poolSources(w: Workload): string[] {
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    // a type-only import is erased from the bundle (a campaign names the call workflow's type only)
    const source = fs.readFileSync(file, 'utf8').replace(/import type [^;]+;/g, '');
    for (const [, spec] of source.matchAll(/from '(\.{1,2}\/[^']+)'/g)) {
      const target = path.resolve(path.dirname(file), `${spec}.ts`);
      if (target.startsWith(WORKFLOWS_DIR) && fs.existsSync(target)) visit(target);
    }
  };
  visit(path.resolve(__dirname, `../workflows/pools/${w}.ts`));
  return [...seen].filter((f) => !f.endsWith('messages.ts')).map((f) => fs.readFileSync(f, 'utf8'));
}

describe('WORKER_TASK_QUEUES: the pools a worker process serves', () => {
  it('is every pool when unset or `all`, else the ones named, once each, in the platform’s order', () => {
    expect(parseWorkerWorkloads(undefined)).toEqual([...WORKLOADS]);
    expect(parseWorkerWorkloads('all')).toEqual([...WORKLOADS]);
    expect(parseWorkerWorkloads(' deliveries, conversations ,deliveries')).toEqual([
      'conversations',
      'deliveries',
    ]);
  });

  it('refuses a name that is no pool, naming it, and an empty list', () => {
    expect(() => parseWorkerWorkloads('conversations,webhooks')).toThrow(
      /WORKER_TASK_QUEUES: each must be one of conversations, deliveries, executions, background \(got "webhooks"\)/,
    );
    expect(() => parseWorkerWorkloads(' , ')).toThrow(/WORKER_TASK_QUEUES: name at least one/);
    expect(() => loadConfig({ NODE_ENV: 'test', WORKER_TASK_QUEUES: 'calls' })).toThrow(/WORKER_TASK_QUEUES/);
  });

  it('puts each pool on its queue under TEMPORAL_TASK_QUEUE', () => {
    expect(taskQueuesFor('vp')).toEqual({
      conversations: 'vp-conversations',
      deliveries: 'vp-deliveries',
      executions: 'vp-executions',
      background: 'vp-background',
    });
    const config = loadConfig({
      NODE_ENV: 'test',
      TEMPORAL_TASK_QUEUE: 'acme',
      WORKER_TASK_QUEUES: 'background',
    });
    expect(config.temporal.taskQueues.background).toBe('acme-background');
    expect(config.temporal.workloads).toEqual(['background']);
  });

  it('polls a queue per pool served, or with TEMPORAL_QUEUE_LAYOUT=shared the one queue for everything', () => {
    const workloads = ['conversations', 'deliveries'] as const;
    expect(queuesToServe({ layout: 'pools', taskQueues: taskQueuesFor('vp'), workloads })).toEqual([
      { pool: 'conversations', taskQueue: 'vp-conversations' },
      { pool: 'deliveries', taskQueue: 'vp-deliveries' },
    ]);
    const shared = taskQueuesFor('vp', 'shared');
    expect(new Set(Object.values(shared))).toEqual(new Set(['vp']));
    expect(queuesToServe({ layout: 'shared', taskQueues: shared, workloads })).toEqual([
      { pool: 'shared', taskQueue: 'vp' },
    ]);
  });
});

describe('what each pool registers', () => {
  it('registers every workflow on exactly one pool', () => {
    const everyWorkflow = Object.entries(allWorkflows)
      .filter(([, value]) => typeof value === 'function')
      .map(([name]) => name)
      .sort();
    const registered = WORKLOADS.flatMap(workflowsOf).sort();
    expect(registered).toEqual(everyWorkflow); // none missing, none twice
    expect(workflowsOf('conversations')).toEqual(
      expect.arrayContaining(['voiceSessionWorkflow', 'phoneCallWorkflow']),
    );
    expect(workflowsOf('deliveries')).toEqual(['deliverWebhookWorkflow', 'recoverWebhookEventsWorkflow']);
    expect(workflowsOf('executions')).toEqual(['runVoiceWorkflow']);
  });

  it('registers every activity sent through a queue on exactly one pool; graph steps where graphs run', () => {
    const graphSteps = activitiesOf('executions');
    expect(graphSteps).toEqual(
      expect.arrayContaining(['callWorkflowTool', 'completeWorkflowPrompt', 'recordExecutionProgress']),
    );
    const counts = new Map<string, Workload[]>();
    for (const w of WORKLOADS)
      for (const name of activitiesOf(w)) counts.set(name, [...(counts.get(name) ?? []), w]);
    for (const [name, pools] of counts) {
      if (graphSteps.includes(name)) expect([name, pools]).toEqual([name, ['conversations', 'executions']]);
      else expect([name, pools]).toEqual([name, [expect.any(String)]]);
    }
  });

  it('routes each workflow’s activities to its own pool: every activity its code calls is registered there', () => {
    const every = [...new Set(WORKLOADS.flatMap(activitiesOf))];
    for (const w of WORKLOADS) {
      const own = new Set(activitiesOf(w));
      const called = every.filter((name) =>
        poolSources(w).some((src) => new RegExp(`\\b${name}\\b`).test(src)),
      );
      expect(called.length).toBeGreaterThan(0);
      expect([w, called.filter((name) => !own.has(name))]).toEqual([w, []]);
    }
  });
});

describe('the workers’ Worker Deployment version', () => {
  const temporalEnvOf = (env: Record<string, string>) => z.object(temporalEnv).parse(env);

  it('is on in production (the queue prefix’s deployment, the package version and commit), off elsewhere', () => {
    const production = temporalConfig(temporalEnvOf({ TEMPORAL_TASK_QUEUE: 'acme' }), true);
    expect(production.deployment?.deploymentName).toBe('acme');
    expect(production.deployment?.buildId).toMatch(/^\d+\.\d+\.\d+(-[0-9a-f]{12})?$/);
    expect(production.deployment?.buildId).toBe(defaultBuildId());
    expect(temporalConfig(temporalEnvOf({}), false).deployment).toBeUndefined();
  });

  it('is named by WORKER_DEPLOYMENT_NAME and WORKER_BUILD_ID, and off with `off`', () => {
    const named = temporalConfig(
      temporalEnvOf({ WORKER_DEPLOYMENT_NAME: 'vp', WORKER_BUILD_ID: 'v7' }),
      false,
    );
    expect(named.deployment).toEqual({ deploymentName: 'vp', buildId: 'v7' });
    expect(temporalConfig(temporalEnvOf({ WORKER_DEPLOYMENT_NAME: 'off' }), true).deployment).toBeUndefined();
  });
});

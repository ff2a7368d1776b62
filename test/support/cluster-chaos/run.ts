import http from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import type { startLlmDouble } from '../llm-double';
import { completeManifest } from '../personas';
import { type Receiver, startReceiver } from '../receiver';
import { speakWorkflow } from '../speak-workflow';
import { call } from '../test-app';
import { Balancer } from './balancer';
import { type ChaosTargets, type FaultRecovery, makeProbe, runFaults } from './faults';
import { type ChaosLoadPlan, newLedger, startLoad } from './load';
import { type ChaosTally, drain, tallyChaos } from './tally';

export type { ChaosTargets, FaultRecovery } from './faults';
export type { ChaosLoadPlan } from './load';
export type { ChaosTally } from './tally';

export interface ClusterChaosOptions {
  /** The API processes' base URLs (the balancer's backends). */
  apis: string[];
  /** A developer's console token (to make the agent) and a test key. */
  token: string;
  key: string;
  targets: ChaosTargets;
  llm: Awaited<ReturnType<typeof startLlmDouble>>;
  load: ChaosLoadPlan;
  settleSeconds: number;
  outageSeconds: number;
  /** How long to wait, after the load stopped, for every delivery and execution. */
  drainSeconds: number;
  progress?: (line: string) => void;
}

/**
 * The chaos run of docs/capacity.md "Faults": the load of `load` (sessions with tool turns, events
 * fanned out to two webhooks, voice-workflow executions) through a balancer over the API processes
 * while `runFaults` kills a worker of each pool, an API process and the history service and cuts
 * PostgreSQL; then the tally of every acknowledged request. Used by the cluster tier (small) and
 * `npm run bench:cluster -- chaos`.
 */
export async function runClusterChaos(
  opts: ClusterChaosOptions,
): Promise<{ recoveries: FaultRecovery[]; tally: ChaosTally }> {
  const runId = `chaos${Date.now().toString(36)}`;
  const balancer = new Balancer(opts.apis, opts.key);
  const tool = await startToolServer();
  const receivers = [await startReceiver(), await startReceiver()];
  try {
    const { personaId, workflowId } = await prepareAccount(opts, balancer, tool.url, receivers);
    const probeSession = await balancer.create('/sessions', { personaId, userId: 'probe' }, `${runId}-probe`);
    const ledger = newLedger();
    const delivered = (id: string) =>
      receivers.every((r) => r.requests.some((q) => q.rawBody.includes(`"id":"${id}"`)));
    const probe = makeProbe({
      balancer,
      ledger,
      probeSessionId: probeSession.id,
      workflowId,
      delivered,
      apis: opts.apis,
      adminToken: opts.targets.adminToken,
      runId,
    });
    const load = startLoad({
      balancer,
      plan: opts.load,
      personaId,
      workflowId,
      ledger,
      runId,
    });
    let recoveries: FaultRecovery[];
    try {
      recoveries = await runFaults({ ...opts, probe });
      await sleep(opts.settleSeconds * 1000);
    } finally {
      load.stop();
      await load.done;
    }
    await drain({ balancer, ledger, receivers, workflowId, runId, timeoutMs: opts.drainSeconds * 1000 });
    const tally = await tallyChaos({ balancer, ledger, receivers, workflowId, runId });
    return { recoveries, tally };
  } finally {
    await Promise.all([tool.close(), ...receivers.map((r) => r.close())]);
  }
}

/** The agent with its tool, the two webhooks and the voice workflow the load runs. */
async function prepareAccount(
  opts: ClusterChaosOptions,
  balancer: Balancer,
  toolUrl: string,
  receivers: Receiver[],
) {
  const created = await balancer.send('POST', '/tools', {
    name: 'lookup_order',
    type: 'webhook',
    config: { url: toolUrl, method: 'POST' },
  });
  if (created.status !== 201) throw new Error(`tool: ${created.status} ${JSON.stringify(created.body)}`);
  const manifest = {
    ...completeManifest('chaos-agent'),
    tools: [{ type: 'tool', id: created.body.data.id }],
  };
  const persona = await call(opts.apis[0]!, 'POST', '/api/v1/developers/personas', {
    token: opts.token,
    body: { manifest },
  });
  if (persona.status !== 201) throw new Error(`persona: ${persona.status} ${JSON.stringify(persona.body)}`);
  // a question about an order → the tool, then an answer from its result; else an echo
  opts.llm.script((req) => {
    const last = req.messages.at(-1);
    if (last?.role === 'tool') return { content: `Found it: ${last.content}` };
    if (/order/.test(last?.content ?? ''))
      return { tool_calls: [{ id: `call_${Date.now()}`, name: 'lookup_order', arguments: {} }] };
    return { content: `echo: ${last?.content}` };
  });
  for (const [i, receiver] of receivers.entries()) {
    const hook = await balancer.send('POST', '/webhooks', {
      name: `chaos-${i}`,
      url: receiver.url,
      events: ['session.started'],
    });
    if (hook.status !== 201) throw new Error(`webhook: ${hook.status} ${JSON.stringify(hook.body)}`);
  }
  const workflow = await balancer.send('POST', '/workflows', speakWorkflow('chaos', 'Done {{input.seq}}'));
  if (workflow.status !== 201)
    throw new Error(`workflow: ${workflow.status} ${JSON.stringify(workflow.body)}`);
  return { personaId: persona.body.persona.id as string, workflowId: workflow.body.data.id as string };
}

/** The tool's endpoint: answers every call with an order's status. */
async function startToolServer() {
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () =>
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"shipped"}'),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}/lookup`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

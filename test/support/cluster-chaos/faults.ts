import { setTimeout as sleep } from 'node:timers/promises';
import type { ManagedProcess } from '../../../src/temporal/cluster/managed-process';
import type { Workload } from '../../../src/temporal/task-queues';
import type { DatabaseProxy } from '../db-proxy';
import type { Balancer } from './balancer';
import { type LoadLedger, turnText } from './load';

/** The processes and the database link the faults act on. */
export interface ChaosTargets {
  apis: { name: string; url: string; process: ManagedProcess }[];
  workers: Record<Workload, ManagedProcess[]>;
  history: ManagedProcess;
  /** Every connection to PostgreSQL (the platform's and Temporal's) goes through it. */
  database: DatabaseProxy;
  adminToken: string;
}

/** One fault's figures: seconds until every kind of work succeeded again, counted from `from`. */
export interface FaultRecovery {
  fault: string;
  /** From the fault ("kill") or from the end of the outage ("restore"). */
  from: 'fault' | 'restore';
  recoverySeconds: number;
  /** For a killed process: seconds until it served again (restarted as a supervisor restarts it). */
  restartSeconds?: number;
  /** Seconds, from the same moment, until each of the probe's four parts succeeded. */
  parts: ProbeTimes;
  outageSeconds?: number;
}

/**
 * A probe of everything at once through the balancer: a turn on the probe's own session, an event
 * delivered to every webhook, an execution completed and the deep readiness check (a system
 * workflow on a `background` worker). Resolves once all four succeeded, with the seconds each took.
 */
export type Probe = () => Promise<ProbeTimes>;

export interface ProbeTimes {
  turn: number;
  event: number;
  execution: number;
  readiness: number;
}

export function makeProbe(opts: {
  balancer: Balancer;
  ledger: LoadLedger;
  probeSessionId: string;
  workflowId: string;
  delivered: (eventId: string) => boolean;
  apis: string[];
  adminToken: string;
  runId: string;
}): Probe {
  let count = 0;
  const { balancer, ledger } = opts;
  const record = { acknowledged: [] as string[], inDoubt: [] as string[] };
  ledger.turns.set(opts.probeSessionId, record);
  const until = async (what: string, attempt: () => Promise<boolean>) => {
    const deadline = Date.now() + 300_000;
    while (!(await attempt().catch(() => false))) {
      if (Date.now() > deadline) throw new Error(`the probe's ${what} did not succeed within 5 minutes`);
      await sleep(250);
    }
  };
  return async () => {
    const n = count++;
    const seq = 1_000_000 + n; // apart from the load's sequence numbers
    const turn = until('turn', async () => {
      const text = turnText(-1, record.acknowledged.length + record.inDoubt.length);
      const answer = await balancer.send('POST', `/sessions/${opts.probeSessionId}/turns`, { text });
      if (answer.status === 200) record.acknowledged.push(text);
      else if (answer.status === 0 || answer.status === 503) record.inDoubt.push(text);
      return answer.status === 200;
    });
    const event = (async () => {
      const body = { type: 'session.started', data: { chaosRun: opts.runId, seq } };
      const created = await balancer.create('/events/trigger', body, `${opts.runId}-event-${seq}`);
      ledger.events.set(seq, created.event.id);
      await until('event', async () => opts.delivered(created.event.id));
    })();
    const execution = (async () => {
      const route = `/workflows/${opts.workflowId}/execute`;
      const created = await balancer.create(
        route,
        { input: { seq }, wait: false },
        `${opts.runId}-exec-${seq}`,
      );
      ledger.executions.set(seq, created.id);
      await until('execution', async () => {
        const read = await balancer.send('GET', `/workflows/${opts.workflowId}/executions/${created.id}`);
        return read.body?.data?.status === 'completed';
      });
    })();
    const ready = until('deep readiness', async () => {
      const res = await fetch(`${opts.apis[n % opts.apis.length]}/readyz?deep=true`, {
        headers: { authorization: `Bearer ${opts.adminToken}` },
      });
      return res.ok;
    });
    const started = performance.now();
    const timed = (part: Promise<void>) => part.then(() => seconds(started));
    const [t, e, x, r] = await Promise.all([turn, event, execution, ready].map(timed));
    return { turn: t!, event: e!, execution: x!, readiness: r! };
  };
}

const seconds = (since: number) => (performance.now() - since) / 1000;

/** A process SIGKILLed and restarted at once by its supervisor; recovery timed by the probe from the kill. */
async function killAndRestart(name: string, target: ManagedProcess, probe: Probe): Promise<FaultRecovery> {
  const at = performance.now();
  target.kill('SIGKILL');
  const restarted = target.restart().then(() => seconds(at));
  const [parts, restartSeconds] = await Promise.all([probe(), restarted]);
  return {
    fault: name,
    from: 'fault',
    recoverySeconds: Math.max(...Object.values(parts)),
    restartSeconds,
    parts,
  };
}

/**
 * The faults, one after the other with `settleSeconds` of load between them: a worker of each pool
 * SIGKILLed, one API process SIGKILLed, the history service SIGKILLed, each restarted at once as a
 * supervisor would; then every PostgreSQL connection cut and refused for `outageSeconds`.
 */
export async function runFaults(opts: {
  targets: ChaosTargets;
  probe: Probe;
  settleSeconds: number;
  outageSeconds: number;
  progress?: (line: string) => void;
}): Promise<FaultRecovery[]> {
  const { targets, probe } = opts;
  const results: FaultRecovery[] = [];
  const note = (r: FaultRecovery) => {
    results.push(r);
    opts.progress?.(
      `  ${r.fault}: recovered ${r.recoverySeconds.toFixed(1)} s after the ${r.from}${r.restartSeconds === undefined ? '' : `; restarted in ${r.restartSeconds.toFixed(1)} s`}`,
    );
  };
  await probe(); // everything works before the first fault
  const faults: [string, () => Promise<FaultRecovery>][] = [
    ...(Object.entries(targets.workers) as [Workload, ManagedProcess[]][]).map(
      ([pool, workers]): [string, () => Promise<FaultRecovery>] => {
        const fault = `${/^[aeiou]/.test(pool) ? 'an' : 'a'} ${pool} pool worker SIGKILLed`;
        return [fault, () => killAndRestart(fault, workers[0]!, probe)];
      },
    ),
    [
      `${targets.apis[0]!.name} SIGKILLed`,
      () => killAndRestart(`${targets.apis[0]!.name} SIGKILLed`, targets.apis[0]!.process, probe),
    ],
    [
      'the history service SIGKILLed',
      () => killAndRestart('the history service SIGKILLed', targets.history, probe),
    ],
    [
      `PostgreSQL cut for ${opts.outageSeconds} s`,
      async () => {
        await targets.database.refuse();
        await sleep(opts.outageSeconds * 1000);
        await targets.database.restore();
        const parts = await probe();
        const fault = `PostgreSQL cut for ${opts.outageSeconds} s`;
        const recoverySeconds = Math.max(...Object.values(parts));
        return { fault, from: 'restore', recoverySeconds, outageSeconds: opts.outageSeconds, parts };
      },
    ],
  ];
  for (const [, inject] of faults) {
    await sleep(opts.settleSeconds * 1000);
    note(await inject());
  }
  return results;
}
